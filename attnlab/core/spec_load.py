"""Reading spec YAML into attnlab.core.spec dataclasses, with errors that name file, key and expectation."""

import dataclasses
import hashlib
import math
from pathlib import Path
from typing import Any

import yaml

from attnlab.core.frameworks.names import DEFAULT as DEFAULT_FRAMEWORK
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
    Course,
    ExerciseSpec,
    Output,
    PropertySpec,
    QuizQuestion,
    QuizSpec,
    SpecError,
    Text,
    Tolerance,
    in_assignment,
)
from attnlab.core.spec_nodes import Node
from attnlab.core.spec_words import framework_words, worded_hints, worded_misconceptions, worded_text

# libyaml's safe loader when pyyaml was built with it (every wheel is): same data, parsed in C
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_safe_yaml(text: str):
    """Plain data only (no Python objects), as yaml.safe_load."""
    return yaml.load(text, Loader=SAFE_LOADER)  # a safe loader, C or Python


def read_yaml(path: Path) -> Node:
    try:
        data = load_safe_yaml(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise SpecError(f"{path}: not valid YAML: {exc}") from None
    except OSError as exc:
        raise SpecError(f"{path}: cannot read: {exc.strerror}") from None
    node = Node(data, path)
    if not isinstance(data, dict):
        raise node.fail("a mapping at the top level", data)
    return node


def text(node: Node, key: str) -> Text:
    m = node.mapping(key)
    return Text(**{lang: m.get(lang, str) for lang in LANGS})


def default_seed(*parts: str) -> int:
    return int.from_bytes(hashlib.sha256(":".join(parts).encode()).digest()[:4], "big")


def arg_recipe(node: Node, seed: int) -> ArgRecipe:
    if not isinstance(node.value, dict):
        if node.value is not None and not isinstance(node.value, (int, float, str, bool)):
            raise node.fail("a scalar or a recipe mapping", node.value)
        return ArgRecipe(kind="value", value=node.value)
    kinds = [k for k in ARG_KINDS if k in node.value]
    if len(kinds) != 1:
        raise node.fail(f"exactly one of {list(ARG_KINDS)}", sorted(node.value))
    kind = kinds[0]
    fields: dict[str, Any] = {"kind": kind, "seed": node.get("seed", int, seed)}
    if kind == "generator":
        node.only({"generator"})
        return ArgRecipe(kind=kind, seed=node.get("generator", int))
    if kind == "device":  # the device under test (cpu unless a run asks for another)
        node.only({"device"})
        node.one_of("device", ("under_test",))
        return ArgRecipe(kind=kind)
    if kind == "randint":  # an integer such as seq_len, drawn from [low, high] (inclusive)
        node.only({"randint", "seed"})
        bounds = node.get("randint", list)
        if len(bounds) != 2 or not all(isinstance(b, int) for b in bounds) or bounds[0] > bounds[1]:
            raise node.child("randint").fail("[low, high] integers with low <= high", bounds)
        return ArgRecipe(kind=kind, value=tuple(bounds), seed=fields["seed"])
    if kind == "literal":
        fields["value"] = node.get("literal", list)
    elif kind == "derived":  # resolved against spec/<id>.py's DERIVED once it is imported (derived_args)
        fields["value"] = node.get("derived", str)
    else:
        shape = node.get(kind, list)
        if not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape):
            raise node.child(kind).fail("a list of non-negative integers (the shape)", shape)
        fields["shape"] = tuple(shape)
    # a literal may be integer data (a paged cache's block tables): never jittered, never float data
    dtypes = {"positions": ("int64",), "mask": ("bool", "float32", "float64"),
              "literal": (*TENSOR_DTYPES, "int64")}.get(kind, TENSOR_DTYPES)
    fields["dtype"] = node.one_of("dtype", dtypes, dtypes[0])
    fields["layout"] = node.one_of("layout", ("contiguous", "transposed", "strided"), "contiguous")
    if kind == "tensor":
        fields["dist"] = node.one_of("dist", ("normal", "uniform"), "normal")
        fields["scale"] = node.get("scale", (int, float, list), 1.0)
        fields["offset"] = float(node.get("offset", (int, float), 0.0))
    if kind == "positions":
        fields["order"] = node.one_of("order", ("arange", "shuffled", "random"), "arange")
        fields["offset"] = node.get("offset", int, 0)
        fields["max_position"] = node.get("max_position", int, 4096)
    if kind == "mask":
        fields["pattern"] = node.one_of("pattern", ("causal", "random", "padding"), "causal")
    node.only({kind, "seed", "dtype", "layout", "dist", "scale", "offset", "order", "max_position", "pattern"})
    return ArgRecipe(**fields)


def derived_args(case: CaseSpec, node: Node, code) -> CaseSpec:
    """The case with each derived argument's name replaced by the function spec/<id>.py's DERIVED gives it."""
    args = dict(case.args)
    for name, recipe in case.args.items():
        if recipe.kind == "derived":
            if recipe.value not in code.derived:
                raise node.child("args").child(name).child("derived").fail(
                    f"a function in the exercise's .py DERIVED: one of {sorted(code.derived)}", recipe.value)
            args[name] = dataclasses.replace(recipe, value=code.derived[recipe.value])
    return dataclasses.replace(case, args=args)


def case(node: Node, exercise_id: str) -> CaseSpec:
    node.only({"name", "visible", "args", "checks", "note", "max_tensor_mb", "max_tile_side"})
    name = node.get("name", str)
    args = {arg: arg_recipe(value, default_seed(exercise_id, name, arg))
            for arg, value in node.mapping("args").items()}
    checks = tuple(node.get("checks", list, ["value"]))
    for i, check in enumerate(checks):
        if check not in CASE_CHECKS:
            raise node.child("checks").child(i).fail(f"one of {list(CASE_CHECKS)}", check)
    budget = node.get("max_tensor_mb", (int, float, type(None)), None)
    if budget is not None and budget <= 0:
        raise node.child("max_tensor_mb").fail("a positive number of megabytes", budget)
    tile = node.get("max_tile_side", (int, type(None)), None)
    if tile is not None and (isinstance(tile, bool) or tile < 1):
        raise node.child("max_tile_side").fail("a positive number of elements", tile)
    return CaseSpec(name=name, visible=node.get("visible", bool), args=args, checks=checks,
                    note=node.get("note", str, ""), max_tensor_mb=budget, max_tile_side=tile)


def prop(node: Node, code, cases: tuple[CaseSpec, ...]) -> PropertySpec:
    """A property: its law resolved (the exercise's own, else generic) and its params checked against the
    law's signature, and names of cases and arguments in them against the spec."""
    check = node.get("check", str)
    law = code.find_law(check)
    if law is None:
        raise node.child("check").fail(f"a law: one of {code.law_names()} (or an @law in the exercise's .py)",
                                       check)
    from attnlab.core.laws import parameters

    params = {k: v.value for k, v in node.items() if k not in ("name", "check", "visible")}
    wanted = parameters(law)
    for name in params:
        if name not in wanted:
            raise node.child(name).fail(f"a parameter of law {check!r}: one of {sorted(wanted)}", name)
    for name, parameter in wanted.items():
        if parameter.default is parameter.empty and name not in params:
            raise node.child(name).fail(f"a value: law {check!r} requires {name!r}")
    _check_law_references(node, params, cases)
    return PropertySpec(name=node.get("name", str), check=check, visible=node.get("visible", bool), params=params,
                        law=law)


def _check_law_references(node: Node, params: dict, cases: tuple[CaseSpec, ...]) -> None:
    """`base_case` names a case; `arg`, `wrt` and the keys of `permute` name arguments of that case."""
    if "base_case" not in params:
        return
    case = next((c for c in cases if c.name == params["base_case"]), None)
    if case is None:
        raise node.child("base_case").fail(f"the name of a case: one of {[c.name for c in cases]}",
                                           params["base_case"])
    named = {"arg": [params.get("arg")], "wrt": params.get("wrt") or [], "permute": list(params.get("permute") or {})}
    for key, names in named.items():
        for name in names:
            if name is not None and name not in case.args:
                raise node.child(key).fail(f"arguments of case {case.name!r}: {sorted(case.args)}", name)


def tolerance(node: Node) -> tuple[dict[str, Tolerance], str, dict[str, dict[str, Tolerance]]]:
    """`tolerance:`: atol/rtol per dtype (float32 and float64 required), `why`, and optionally a framework's
    own atol/rtol for some dtypes (`mindspore: {float64: {atol: ..., rtol: ...}}`), which replace the general
    ones when the exercise is graded in that framework (ExerciseSpec.in_framework)."""
    tol = node.mapping("tolerance")
    tol.only({*TENSOR_DTYPES, "why", *OTHERS})
    by_dtype = _by_dtype(tol)
    for dtype in ("float32", "float64"):
        if dtype not in by_dtype:
            raise tol.child(dtype).fail("atol/rtol for this dtype (float32 and float64 are required)")
    by_framework = {}
    for framework in OTHERS:
        if framework in tol.value:
            own = tol.mapping(framework)
            own.only(set(TENSOR_DTYPES))
            by_framework[framework] = _by_dtype(own)
            if not by_framework[framework]:
                raise own.fail(f"atol/rtol for at least one dtype of {list(TENSOR_DTYPES)}")
            for dtype, t in by_framework[framework].items():  # a framework loses precision, never gains it
                general = by_dtype.get(dtype) or by_dtype["float32"]
                if t.atol < general.atol or t.rtol < general.rtol:
                    raise own.child(dtype).fail(f"no tighter than the general tolerance {general}", t)
    why = tol.get("why", str)
    if len(why.strip()) < 20:
        raise tol.child("why").fail("a real one-line justification of the tolerance", why)
    return by_dtype, why, by_framework


def _by_dtype(tol: Node) -> dict[str, Tolerance]:
    by_dtype = {}
    for dtype in TENSOR_DTYPES:
        if dtype in tol.value:
            t = tol.mapping(dtype)
            t.only({"atol", "rtol"})
            by_dtype[dtype] = Tolerance(atol=_tolerance_value(t, "atol"), rtol=_tolerance_value(t, "rtol"))
    return by_dtype


def non_negative(value: float) -> bool:
    """Finite and 0 or more: what points and tolerances must be (NaN and inf are neither)."""
    return value >= 0 and math.isfinite(value)


def _tolerance_value(node: Node, key: str, default: float | None = None) -> float:
    """atol, rtol or a numeric quiz question's tolerance (required unless a `default` is given): finite and 0 or
    more. A negative one failed every output (or answer), the reference's too; .inf passed every one, a wrong
    one's too; .nan failed every one."""
    value = float(node.get(key, (int, float)) if default is None else node.get(key, (int, float), default))
    if not non_negative(value):
        raise node.child(key).fail("a finite number, 0 or more", value)
    return value


EXERCISE_KEYS = {"kind", "id", "function", "module", "title", "description", "points", "hints", "forbidden",
                 "tolerance", "cases", "properties", "misconceptions", "returns", "frameworks"}


def returns(node: Node, cases: tuple[CaseSpec, ...]) -> tuple[Output, ...]:
    """The outputs (default: one, "output"), each keeping the dtype and device of the argument it is `like`
    (default: the first floating-point data argument of the first case)."""
    first = next((name for name, r in cases[0].args.items() if r.is_float_data), None)
    listed = node.sequence("returns", required=False)
    if not listed:
        return (Output("output", first),)
    outputs = []
    for item in listed:
        item.only({"name", "like", "identity_when"})
        like = item.get("like", (str, type(None)), first)
        if like is not None and like not in cases[0].args:
            raise item.child("like").fail(f"an argument of the cases: one of {sorted(cases[0].args)}", like)
        outputs.append(Output(item.get("name", str), like, identity_when(item, like, cases)))
    return tuple(outputs)


def identity_when(item: Node, like: str | None, cases: tuple[CaseSpec, ...]) -> tuple[dict[str, Any], ...]:
    """`identity_when:`: mappings of arguments to plain values under which the output may be its `like`
    argument itself (spec.Output.identity_when)."""
    conditions = item.sequence("identity_when", required=False)
    if conditions and like is None:
        raise item.child("like").fail("the argument the output may be (identity_when needs one)", like)
    arguments = {name for case in cases for name in case.args}
    for when in conditions:
        if not isinstance(when.value, dict) or not when.value:
            raise when.fail("a mapping of argument names to values, e.g. {training: false}", when.value)
        for name, value in when.items():
            if name not in arguments:
                raise value.fail(f"an argument of the cases: one of {sorted(arguments)}", name)
            if not isinstance(value.value, (bool, int, float, str)):
                raise value.fail("a plain value (boolean, number or string)", value.value)
    return tuple(dict(when.value) for when in conditions)


def exercise(path: Path, node: Node) -> ExerciseSpec:
    node.only(EXERCISE_KEYS)
    node.one_of("kind", ("function",), "function")
    ex_id = node.get("id", str)
    if ex_id != path.stem:
        raise node.child("id").fail(f"the file's name {path.stem!r} (one id joins everything)", ex_id)
    function = node.get("function", str)
    if function != f"run_{ex_id}":
        raise node.child("function").fail(f"'run_{ex_id}'", function)
    frameworks = frameworks_of(node)
    description, own_description = worded_text(node, "description", frameworks)
    hints, own_hints = worded_hints(node, frameworks)
    misconceptions, own_messages = worded_misconceptions(node, frameworks)
    by_tol, why, by_framework = tolerance(node)
    cases = tuple(case(c, ex_id) for c in node.sequence("cases"))
    names = [c.name for c in cases]
    if len(set(names)) != len(names) or not cases:
        raise node.child("cases").fail("at least one case, with unique names", names)
    from attnlab.core.exercises import code_for  # imports torch: only once an exercise is loaded

    try:
        code = code_for(path.parent, ex_id)
    except ImportError as exc:
        raise SpecError(f"{path.with_suffix('.py')}: cannot be imported: {exc}") from None
    cases = tuple(derived_args(c, node.sequence("cases")[i], code) for i, c in enumerate(cases))
    return ExerciseSpec(
        id=ex_id, function=function, module=node.get("module", str),
        title=text(node, "title"), description=description,
        points=points_of(node), hints=hints,
        forbidden=tuple(n.value for n in node.sequence("forbidden", required=False)),
        tolerance=by_tol, tolerance_why=why, cases=cases,
        properties=tuple(prop(p, code, cases) for p in node.sequence("properties", required=False)),
        returns=returns(node, cases), misconceptions=misconceptions,
        path=path, frameworks=frameworks, framework_tolerance=by_framework,
        framework_words=framework_words(own_description, own_hints, own_messages))


def points_of(node: Node) -> float:
    """`points:` of an exercise or a quiz question: 0 (practice, graded for feedback only) or more. Fewer would
    take points from whoever gets it right (`new --points -3` wrote such an exercise, and it loaded)."""
    points = float(node.get("points", (int, float)))
    if not non_negative(points):
        raise node.child("points").fail("a number of points, 0 or more", points)
    return points


def frameworks_of(node: Node) -> tuple[str, ...]:
    """`frameworks:` (default all): the frameworks an exercise can be written and graded in; an exercise that
    needs what only some have (autograd on torch tensors) names them, and an assignment in another refuses it."""
    if "frameworks" not in node.value:
        return FRAMEWORKS
    listed = node.sequence("frameworks")
    for item in listed:
        if item.value not in FRAMEWORKS:
            raise item.fail(f"one of {list(FRAMEWORKS)}", item.value)
    if not listed:
        raise node.child("frameworks").fail("at least one framework", [])
    return tuple(item.value for item in listed)


def quiz(path: Path, node: Node) -> QuizSpec:
    node.only({"kind", "id", "title", "description", "answers_file", "questions"})
    questions = []
    for q in node.sequence("questions"):
        q.only({"id", "kind", "prompt", "points", "choices", "tolerance"})
        kind = q.one_of("kind", ("numeric", "choice"))
        choices_node = q.mapping("choices", required=kind == "choice")
        choices = {key: text(choices_node, key) for key in choices_node.value}
        questions.append(QuizQuestion(
            id=q.get("id", str), kind=kind, prompt=text(q, "prompt"), points=points_of(q),
            choices=choices, tolerance=_tolerance_value(q, "tolerance", default=0.0)))
    return QuizSpec(id=node.get("id", str), title=text(node, "title"), description=text(node, "description"),
                    points=sum(q.points for q in questions), answers_file=node.get("answers_file", str),
                    questions=tuple(questions), path=path)


def load_exercise(path: Path) -> ExerciseSpec | QuizSpec:
    """spec/<id>.yaml: an exercise (`kind: function`, the default) or a quiz (`kind: quiz`)."""
    node = read_yaml(path)
    kind = node.one_of("kind", ("function", "quiz"), "function")
    return quiz(path, node) if kind == "quiz" else exercise(path, node)


def load_course(spec_dir: Path, assignment: str | None = None, framework: str | None = None) -> Course:
    """spec/course.yaml: the course's assignments, each listing its exercises in order; every id must have
    spec/<id>.yaml and vice versa. The Course returned is `assignment`'s (default: the first listed), in
    `framework` if given (--framework), else in the assignment's own."""
    spec_dir = Path(spec_dir)
    node = read_yaml(spec_dir / "course.yaml")
    node.only({"title", "libraries", "assignments"})
    assignments = tuple(_assignment(n) for n in node.sequence("assignments"))
    ids = [i for a in assignments for i in a.exercise_ids]
    on_disk = sorted(p.stem for p in spec_dir.glob("*.yaml") if p.stem != "course")
    if sorted(ids) != on_disk:
        raise node.child("assignments").fail(f"each spec file present {on_disk} listed once", sorted(ids))
    loaded = {i: load_exercise(spec_dir / f"{i}.yaml") for i in ids}
    for item, a in zip(node.sequence("assignments"), assignments):
        points = sum(loaded[i].points for i in a.exercise_ids)
        if abs(points - a.total_points) > 1e-9:
            raise item.child("total_points").fail(f"the sum of its exercises' points {points:g}", a.total_points)
    chosen = _choose(assignments, assignment, node)
    if framework is not None:
        if framework not in FRAMEWORKS:
            raise SpecError(f"unknown framework {framework!r}; expected one of {list(FRAMEWORKS)}")
        chosen = dataclasses.replace(chosen, framework=framework)
    placed = in_assignment(chosen, loaded, libraries(node))
    everything = tuple(ex.in_framework(chosen.framework) if isinstance(ex, ExerciseSpec) else ex
                       for ex in (loaded[i] for i in ids))
    return Course(title=chosen.title, assignment=chosen, assignments=assignments, everything=everything, **placed)


def assignment_framework(spec_dir: Path, assignment: str | None = None) -> str:
    """The framework of `assignment` from course.yaml alone (no exercise loaded, no torch imported)."""
    node = read_yaml(Path(spec_dir) / "course.yaml")
    return _choose(tuple(_assignment(n) for n in node.sequence("assignments")), assignment, node).framework


def _assignment(node: Node) -> Assignment:
    node.only({"id", "title", "total_points", "framework", "exercises", "libraries"})
    exercise_ids = tuple(n.value for n in node.sequence("exercises"))
    if not exercise_ids or not all(isinstance(i, str) for i in exercise_ids):
        raise node.child("exercises").fail("a list of exercise ids", list(exercise_ids))
    return Assignment(id=node.get("id", str), title=text(node, "title"),
                      total_points=float(node.get("total_points", (int, float))), exercise_ids=exercise_ids,
                      framework=node.one_of("framework", FRAMEWORKS, DEFAULT_FRAMEWORK), libraries=libraries(node))


def _choose(assignments: tuple[Assignment, ...], wanted: str | None, node: Node) -> Assignment:
    if wanted is None:
        return assignments[0]
    for a in assignments:
        if a.id == wanted:
            return a
    raise SpecError(f"{node.file}: no assignment {wanted!r}; the course has {[a.id for a in assignments]}")


def libraries(node: Node) -> tuple[str, ...]:
    """course.yaml's `libraries:`: importable top-level package names (e.g. einops)."""
    names = []
    for item in node.sequence("libraries", required=False):
        if not isinstance(item.value, str) or not item.value.isidentifier():
            raise item.fail("a package's import name (e.g. einops)", item.value)
        names.append(item.value)
    return tuple(names)
