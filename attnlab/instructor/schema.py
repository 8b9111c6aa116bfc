"""JSON Schemas of the spec files, generated from the spec dataclasses (attnlab.core.spec), so that YAML
editors validate and complete spec/<id>.yaml and spec/course.yaml as they are typed:

    python -m attnlab.instructor.generate schema [--check]   # spec/schema/{exercise,quiz,course}.json

Each dataclass becomes an object schema: its fields are the properties (required when the field has no
default), their annotations give the types, and no other key is allowed. YAML_FORM lists the few places
where the YAML is not the dataclass one-to-one (an argument recipe is keyed by its kind; the tolerance's
`why` sits beside the dtypes; a description, the hints and a misconception's message may carry a framework's
own words beside en and zh; derived fields are not written). The loader (spec_load.py) stays the
authority: it checks what a schema cannot (law parameters, case names, sums of points), and
tests/unit/test_schema.py checks that every spec here validates and that the schemas are up to date.
"""

import dataclasses
import json
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from attnlab.core import paths
from attnlab.core.frameworks.names import NAMES as FRAMEWORKS
from attnlab.core.frameworks.names import OTHERS
from attnlab.core.i18n import LANGS
from attnlab.core.spec import (
    ARG_KINDS,
    CASE_CHECKS,
    TENSOR_DTYPES,
    ArgRecipe,
    Assignment,
    CaseSpec,
    ExerciseSpec,
    Misconception,
    Output,
    PropertySpec,
    QuizQuestion,
    QuizSpec,
    Text,
    Tolerance,
)

SCHEMA_DIR = paths.SPEC_DIR / "schema"
DRAFT = "https://json-schema.org/draft/2020-12/schema"
NUMBER = {"type": "number"}
POINTS = {"type": "number", "minimum": 0}  # spec_load.points_of
TEXT = {"$ref": "#/$defs/Text"}

# class -> {field: None (derived, not written in YAML) | a schema replacing the annotation's}
WORDED = {"$ref": "#/$defs/WordedText"}  # a Text, and each framework's own (attnlab.core.spec_words)


OWN_WORDS = OTHERS  # the general text is the default framework's


def _hint_lists(**limits: int) -> dict:
    return {lang: {"type": "array", "items": {"type": "string"}, **limits} for lang in LANGS}


YAML_FORM: dict[type, dict[str, Any]] = {
    ExerciseSpec: {
        "path": None, "tolerance_why": None, "framework_tolerance": None,  # the last is read from `tolerance:`
        "framework_words": None, "general": None,  # read from description:, hints: and messages; derived
        "kind": {"const": "function"},
        "function": {"type": "string", "pattern": "^run_[a-z0-9_]+$"},
        "id": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
        "description": WORDED,
        "hints": {"type": "object", "required": list(LANGS), "additionalProperties": False,
                  "properties": {**_hint_lists(), **{
                      framework: {"type": "object", "required": list(LANGS), "additionalProperties": False,
                                  "properties": _hint_lists(minItems=1), "description": f"what {framework}'s students "
                                  "read instead of the general hints (which name torch's API)"}
                      for framework in OWN_WORDS}}},
        "tolerance": {"$ref": "#/$defs/Tolerances"},
        "frameworks": {"type": "array", "items": {"enum": list(FRAMEWORKS)}, "minItems": 1},
        "returns": {"type": "array", "items": {"$ref": "#/$defs/Output"}, "minItems": 1},
        "forbidden": {"type": "array", "items": {"type": "string", "pattern": r"^[A-Za-z_][\w.]*$"}},
        "points": POINTS,
    },
    QuizSpec: {"path": None, "function": None, "kind": {"const": "quiz"}, "points": None},
    QuizQuestion: {"kind": {"enum": ["numeric", "choice"]}, "points": POINTS,
                   "tolerance": {"type": "number", "minimum": 0}, "choices": {
        "type": "object", "additionalProperties": TEXT}},
    CaseSpec: {"checks": {"type": "array", "items": {"enum": list(CASE_CHECKS)}},
               "args": {"type": "object", "additionalProperties": {"$ref": "#/$defs/Argument"}},
               "max_tensor_mb": {"type": ["number", "null"], "exclusiveMinimum": 0},
               "max_tile_side": {"type": ["integer", "null"], "minimum": 1}},
    PropertySpec: {"law": None, "params": None},
    Output: {"like": {"type": ["string", "null"]}},
    Misconception: {"message": WORDED},
    Assignment: {"exercise_ids": None, "framework": {"enum": list(FRAMEWORKS)}},
    Tolerance: {"atol": {"type": "number", "minimum": 0}, "rtol": {"type": "number", "minimum": 0}},  # spec_load
}
# fields the loader gives a default when the YAML leaves them out
YAML_OPTIONAL = {(CaseSpec, "checks"), (QuizQuestion, "choices"), (QuizQuestion, "tolerance"),
                 (ExerciseSpec, "forbidden"), (ExerciseSpec, "properties"), (ExerciseSpec, "misconceptions")}
# the YAML key where it differs from the field's name
YAML_NAME = {(PropertySpec, "check"): "check", (Assignment, "exercise_ids"): "exercises"}


def annotation_schema(tp: Any) -> dict:
    """JSON Schema of a field's annotation (the spec dataclasses use few types)."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is str:
        return {"type": "string"}
    if tp is bool:
        return {"type": "boolean"}
    if tp is int:
        return {"type": "integer"}
    if tp is float:
        return NUMBER
    if tp is type(None):
        return {"type": "null"}
    if dataclasses.is_dataclass(tp):
        return {"$ref": f"#/$defs/{tp.__name__}"}
    if origin is tuple:
        return {"type": "array", "items": annotation_schema(args[0])}
    if origin in (Mapping, dict) or tp is Mapping:
        return {"type": "object", "additionalProperties": annotation_schema(args[1]) if args else {}}
    if origin in (typing.Union, types.UnionType):
        return {"anyOf": [annotation_schema(a) for a in args]}
    return {}  # Any: whatever the loader accepts


def object_schema(cls: type) -> dict:
    """The YAML mapping a spec dataclass is read from."""
    hints = typing.get_type_hints(cls)
    form = YAML_FORM.get(cls, {})
    properties, required = {}, []
    for f in dataclasses.fields(cls):
        if f.name in form and form[f.name] is None:
            continue
        key = YAML_NAME.get((cls, f.name), f.name)
        properties[key] = form.get(f.name) or annotation_schema(hints[f.name])
        if (f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
                and (cls, f.name) not in YAML_OPTIONAL):
            required.append(key)
    schema = {"type": "object", "properties": properties, "required": required, "additionalProperties": False}
    if cls.__doc__ and not cls.__doc__.startswith(f"{cls.__name__}("):
        schema["description"] = " ".join(cls.__doc__.split())
    return schema


def argument_schema() -> dict:
    """An argument of a case: a plain scalar, or a recipe mapping keyed by its kind (`{tensor: [2, 3]}`)."""
    recipe_fields = {f.name for f in dataclasses.fields(ArgRecipe)} - {"kind", "value", "shape"}
    hints = typing.get_type_hints(ArgRecipe)
    options = {name: annotation_schema(hints[name]) for name in sorted(recipe_fields)}
    options["dtype"] = {"enum": [*TENSOR_DTYPES, "int64", "bool"]}
    options["scale"] = {"anyOf": [NUMBER, {"type": "array"}]}
    options["offset"] = NUMBER
    shape = {"type": "array", "items": {"type": "integer", "minimum": 0}}
    by_kind = {"tensor": shape, "positions": shape, "mask": shape, "literal": {"type": "array"},
               "generator": {"type": "integer"}, "randint": {"type": "array", "items": {"type": "integer"},
                                                            "minItems": 2, "maxItems": 2},
               "device": {"const": "under_test"}, "derived": {"type": "string"}}
    variants = [{"type": "object", "required": [kind], "additionalProperties": False,
                 "properties": {kind: by_kind[kind], **options}} for kind in ARG_KINDS]
    return {"oneOf": [{"type": ["number", "string", "boolean", "null"]}, *variants]}


def worded_text_schema() -> dict:
    """A text in en and zh that may give a framework its own, in both languages (attnlab.core.spec_words)."""
    own = {framework: {"$ref": "#/$defs/Text", "description": f"what {framework}'s students read instead of the "
                       "general text (which names torch's API)"} for framework in OWN_WORDS}
    return {"type": "object", "required": list(LANGS), "additionalProperties": False,
            "properties": {**{lang: {"type": "string"} for lang in LANGS}, **own}}


def definitions(*classes: type) -> dict:
    defs = {"Text": object_schema(Text)}
    for cls in classes:
        defs[cls.__name__] = object_schema(cls)
    return defs


def exercise_schema() -> dict:
    defs = definitions(ExerciseSpec, CaseSpec, PropertySpec, Output, Misconception, Tolerance)
    defs["PropertySpec"]["additionalProperties"] = True  # the law's parameters (checked at load)
    defs["Argument"] = argument_schema()
    defs["WordedText"] = worded_text_schema()
    tolerances = {dtype: {"$ref": "#/$defs/Tolerance"} for dtype in TENSOR_DTYPES}
    own = {framework: {"type": "object", "additionalProperties": False, "minProperties": 1, "properties": tolerances,
                       "description": f"{framework}'s own tolerance for some dtypes (docs/mindspore.md)"}
           for framework in OTHERS}
    defs["Tolerances"] = {"type": "object", "required": ["float32", "float64", "why"], "additionalProperties": False,
                          "properties": {**tolerances, **own, "why": {"type": "string", "minLength": 20}}}
    return _document("exercise", "spec/<id>.yaml: one coded exercise", "ExerciseSpec", defs)


def quiz_schema() -> dict:
    return _document("quiz", "spec/<id>.yaml with kind: quiz", "QuizSpec", definitions(QuizSpec, QuizQuestion))


def course_schema() -> dict:
    defs = definitions(Assignment)
    defs["Assignment"]["properties"]["exercises"] = {"type": "array", "items": {"type": "string"}, "minItems": 1}
    defs["Assignment"]["required"].append("exercises")
    defs["Assignment"]["properties"]["libraries"] = {"type": "array", "items": {"type": "string"}}
    course = {"type": "object", "additionalProperties": False, "required": ["title", "assignments"],
              "properties": {"title": TEXT, "libraries": {"type": "array", "items": {"type": "string"}},
                             "assignments": {"type": "array", "items": {"$ref": "#/$defs/Assignment"},
                                             "minItems": 1}}}
    return {"$schema": DRAFT, "$id": "attnlab/course.json", "title": "spec/course.yaml: the course",
            **course, "$defs": defs}


def _document(name: str, title: str, root: str, defs: dict) -> dict:
    return {"$schema": DRAFT, "$id": f"attnlab/{name}.json", "title": title, "$ref": f"#/$defs/{root}",
            "$defs": defs}


def schema_files() -> dict[str, str]:
    """File name under spec/schema/ -> its JSON text."""
    made = {"exercise.json": exercise_schema(), "quiz.json": quiz_schema(), "course.json": course_schema()}
    return {name: json.dumps(schema, indent=2, ensure_ascii=False) + "\n" for name, schema in made.items()}


def sync_schema(*, check: bool, root: Path = SCHEMA_DIR) -> list[str]:
    wanted = schema_files()
    drift = sorted(n for n, text in wanted.items() if not (root / n).is_file()
                   or (root / n).read_text(encoding="utf-8") != text)
    if not check:
        root.mkdir(parents=True, exist_ok=True)
        for name in drift:
            (root / name).write_text(wanted[name], encoding="utf-8")
    return [f"spec/schema/{name}" for name in drift]
