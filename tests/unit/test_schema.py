"""The JSON Schemas of the spec files (spec/schema/, generated from the spec dataclasses) are up to date,
accept every spec in spec/ and reject the mistakes an editor should underline."""

import copy
import json

import jsonschema
import pytest
import yaml

from attnlab.core import paths
from attnlab.instructor.schema import SCHEMA_DIR, sync_schema


def schema(name: str) -> dict:
    return json.loads((SCHEMA_DIR / f"{name}.json").read_text(encoding="utf-8"))


def errors(name: str, data: dict) -> list[str]:
    return [f"{list(e.path)}: {e.message}" for e in jsonschema.Draft202012Validator(schema(name)).iter_errors(data)]


def kind_of(path, data) -> str:
    return "course" if path.stem == "course" else "quiz" if data.get("kind") == "quiz" else "exercise"


def test_schemas_are_generated_and_up_to_date():
    assert sync_schema(check=True) == [], "run `python -m attnlab.instructor.generate schema`"
    for name in ("exercise", "quiz", "course"):
        jsonschema.Draft202012Validator.check_schema(schema(name))


@pytest.mark.parametrize("path", sorted(paths.SPEC_DIR.glob("*.yaml")), ids=lambda p: p.name)
def test_every_spec_validates(path):
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert errors(kind_of(path, data), data) == []


@pytest.fixture
def softmax() -> dict:
    return yaml.safe_load((paths.SPEC_DIR / "softmax.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize(("edit", "where"), [
    (lambda s: s["cases"][0].update(visibile=True), "cases"),  # a misspelt key
    (lambda s: s["cases"][0]["args"]["in_features"].update(dtype="float"), "in_features"),  # no such dtype
    (lambda s: s["cases"][0]["args"]["in_features"].update(mask=[2, 2]), "in_features"),  # two kinds at once
    (lambda s: s.update(function="softmax"), "function"),  # the id's run_ name
    (lambda s: s["tolerance"].pop("why"), "tolerance"),  # an unjustified tolerance
    (lambda s: s["title"].pop("zh"), "title"),  # one language missing
    (lambda s: s.update(frameworks=["tensorflow"]), "frameworks"),
])
def test_mistakes_are_rejected(softmax, edit, where):
    broken = copy.deepcopy(softmax)
    edit(broken)
    found = errors("exercise", broken)
    assert found and any(where in e for e in found), found


def test_the_course_schema_knows_frameworks_and_assignments():
    data = yaml.safe_load((paths.SPEC_DIR / "course.yaml").read_text(encoding="utf-8"))
    data["assignments"][0]["framework"] = "keras"
    assert any("framework" in e for e in errors("course", data))
