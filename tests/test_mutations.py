"""The mutation corpus (tests/mutations/): every bug is caught by its exercise's checks and diagnosed as it
declares, every correct alternative passes every check, and every spec misconception is real and used.

Each corpus file is evaluated once (cached) with the same checks students get; see harness/mutants.py.
Entries marked PENDING document a known gap in the checks: their tests are strict xfails, so they start
failing (and the marker must go) as soon as the gap is closed.
"""

import ast
import importlib.util
import inspect
from functools import cache

import pytest

import reference
from attnlab.core import frameworks, paths
from attnlab.core.diagnose import misconception_function
from attnlab.core.frameworks.kernels import KERNELS_ONLY
from attnlab.core.impl import find_function
from attnlab.core.precision import FLOAT32_PRECISION
from attnlab.core.spec_load import load_course
from attnlab.instructor.mutants import CORPUS_DIR, Mutant, caught_by, diagnoses, discover, evaluate, main

COURSE = load_course(paths.SPEC_DIR)
MUTANTS = discover(CORPUS_DIR)
BUGS = [m for m in MUTANTS if m.kind == "bug"]
ALTS = [m for m in MUTANTS if m.kind == "alt"]
MIN_BUGS, MIN_BUGS_PER_EXERCISE, MIN_ALTS = 50, 4, 15


def params(mutants: list[Mutant], *, pending: bool = True) -> list:
    """One param per mutant; with `pending`, PENDING entries are strict xfails (the gap is what fails)."""
    return [pytest.param(m, id=m.name, marks=([pytest.mark.xfail(strict=True, reason=m.pending)]
                                              if pending and m.pending else []) + slow_for(m))
            for m in mutants]


def slow_for(mutant: Mutant) -> list:
    """Left out of the fast tier (pyproject: slow), run by the full suite: JAX's checks, which compile every
    operation per shape, and the entries of an exercise with a memory-budgeted case, whose long call is
    about half a second of arithmetic per entry (flash_attention's 12288 tokens: 151M scores, in tiles)."""
    budgeted = any(case.max_tensor_mb is not None for case in COURSE.find(mutant.exercise).cases)
    return [pytest.mark.slow] if mutant.framework == "jax" or budgeted else []


@cache
def _results(mutant: Mutant):
    return evaluate(mutant, COURSE)


def results(mutant: Mutant):
    if not frameworks.adapter(mutant.framework).available():  # CI installs each (README: Frameworks)
        pytest.skip(f"{mutant.framework} is not installed here")
    if KERNELS_ONLY in COURSE.find(mutant.exercise).forbidden and importlib.util.find_spec("triton") is None:
        pytest.skip("triton is not installed here (pip install -e '.[triton]')")
    return _results(mutant)


@pytest.mark.parametrize("bug", params(BUGS))
def test_bug_is_caught(bug):
    assert caught_by(results(bug)), f"{bug.path}: passes every check of {bug.exercise}"


@pytest.mark.parametrize("bug", params([b for b in BUGS if b.diagnosis]))
def test_bug_is_diagnosed(bug):
    found = diagnoses(results(bug))
    assert bug.diagnosis in found, f"{bug.path}: expected diagnosis {bug.diagnosis!r}, got {sorted(found)}"


@pytest.mark.parametrize("bug", params(BUGS, pending=False))
def test_bug_is_not_misdiagnosed(bug):
    """A failing output that matches another misconception gives the student a wrong "Likely cause"."""
    wrong = diagnoses(results(bug)) - {bug.diagnosis, *bug.also_diagnosed}
    assert not wrong, f"{bug.path}: also diagnosed as {sorted(wrong)} (remove the overlap or declare it in " \
                      "ALSO_DIAGNOSED)"


@pytest.mark.parametrize("alt", params(ALTS))
def test_alternative_passes_every_check(alt):
    failed = [f"{r.name} ({r.status}): {r.message}" for r in caught_by(results(alt))]
    assert not failed, f"{alt.path} is correct but fails:\n" + "\n".join(failed)


def test_corpus_size():
    coded = {e.id for e in COURSE.all_coded}
    per_exercise = {ex: sum(b.exercise == ex for b in BUGS) for ex in coded}
    assert {m.exercise for m in MUTANTS} <= coded, "corpus directories must be coded exercise ids"
    assert len(BUGS) >= MIN_BUGS and len(ALTS) >= MIN_ALTS, (len(BUGS), len(ALTS))
    thin = {ex: n for ex, n in per_exercise.items() if n < MIN_BUGS_PER_EXERCISE}
    assert not thin, f"exercises with fewer than {MIN_BUGS_PER_EXERCISE} bugs: {thin}"


MIN_ALTS_PER_FRAMEWORK = 2
# frameworks whose corpus proves, for every coded exercise they offer, that correct code written in at least
# two of the styles its students use (a module with loaded weights, vmap, loops, einsum; not the reference's)
# gets full marks; torch's is held to more by test_corpus_size
COVERED_ALTS = {"numpy", "jax", "mindspore"}


@pytest.mark.parametrize("framework", sorted(COVERED_ALTS))
def test_every_exercise_has_correct_alternatives_in(framework):
    """PENDING entries do not count: they are correct code the checks do not pass yet."""
    offered = [e.id for e in COURSE.all_coded if framework in e.frameworks]
    count = {ex: sum(a.exercise == ex and a.framework == framework and not a.pending for a in ALTS) for ex in offered}
    thin = {ex: n for ex, n in count.items() if n < MIN_ALTS_PER_FRAMEWORK}
    assert offered and not thin, (f"exercises with fewer than {MIN_ALTS_PER_FRAMEWORK} correct alternatives in "
                                  f"tests/mutations/<exercise>/{framework}/: {thin}")


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_file_is_a_documented_run_function(mutant):
    """A module docstring, the exercise's function with the reference's parameter names, and (bugs) a
    DIAGNOSIS that names a misconception of the exercise's spec (or None)."""
    tree = ast.parse(mutant.path.read_text(encoding="utf-8"))
    assert ast.get_docstring(tree), f"{mutant.path}: say in a docstring what the student did and why"
    exercise = COURSE.find(mutant.exercise)
    defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert exercise.function in defs, f"{mutant.path}: defines no {exercise.function}"
    args = defs[exercise.function].args
    expected = list(inspect.signature(find_function(reference, exercise.module, exercise.function)).parameters)
    assert [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs] == expected
    if mutant.kind == "bug":
        assigned = {getattr(t, "id", None) for node in tree.body for t in getattr(node, "targets", ())}
        assert "DIAGNOSIS" in assigned, f"{mutant.path}: set DIAGNOSIS (a misconception id, or None)"
        ids = {m.id for m in exercise.misconceptions} | {FLOAT32_PRECISION}  # every exercise's, built in
        assert {mutant.diagnosis, *mutant.also_diagnosed} - {None} <= ids, f"{mutant.path}: unknown id"


@pytest.mark.parametrize("exercise", COURSE.all_coded, ids=lambda e: e.id)
def test_misconceptions_resolve_and_are_exercised(exercise):
    used = {b.diagnosis for b in BUGS if b.exercise == exercise.id}
    for misconception in exercise.misconceptions:
        assert callable(misconception_function(exercise, misconception))
        assert misconception.id in used, (f"{exercise.path}: misconception {misconception.id!r} is not the "
                                          "DIAGNOSIS of any bug in tests/mutations/")


def test_cli_reports_and_exits_zero(capsys):
    assert main(["--exercise", "causal_mask"]) == 0
    out = capsys.readouterr().out
    assert "causal_mask/bug_triu: caught by" in out and "diagnosed: upper_triangle" in out
    assert "causal_mask/alt_arange_comparison: passes all" in out


def test_quality_report_gives_the_margins(capsys):
    """`mutants ID`: the bug closest to passing is still well outside the tolerance, and the correct code
    closest to failing is inside it."""
    assert main(["softmax", "--framework", "torch"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("softmax margins: "))
    bug = float(line.split("closest bug ")[1].split("x")[0])
    alt = float(line.split("closest correct code ")[1].split("x")[0])
    assert bug > 10 and alt < 1, line


def test_margins_pick_the_weakest_bug_and_the_riskiest_alternative():
    from attnlab.core.results import CheckResult
    from attnlab.core.status import Status
    from attnlab.instructor.mutants import margins

    def bug(name, *excesses):
        return (Mutant("x", "bug", paths.ROOT / f"{name}.py"),
                [CheckResult(f"c{i}", e < 1, Status.PASSED if e < 1 else Status.FAILED, excess=e)
                 for i, e in enumerate(excesses)])

    def alt(name, *excesses):
        return (Mutant("x", "alt", paths.ROOT / f"{name}.py"),
                [CheckResult(f"c{i}", True, Status.PASSED, excess=e) for i, e in enumerate(excesses)])

    closest_bug, closest_alt = margins([bug("far", 0.1, 900.0), bug("near", 0.5, 3.0, 2.0), bug("laws_only"),
                                        alt("safe", 0.01), alt("risky", 0.2, 0.7)])
    assert (closest_bug.mutant, closest_bug.case, closest_bug.ratio) == ("x/near", "c1", 3.0)
    assert (closest_alt.mutant, closest_alt.case, closest_alt.ratio) == ("x/risky", "c1", 0.7)


def test_score_line_counts_caught_bugs_and_passing_alternatives():
    from attnlab.core.results import CheckResult
    from attnlab.core.status import Status
    from attnlab.instructor.mutants import score_line

    failed, passed = CheckResult("c", False, Status.FAILED), CheckResult("c", True, Status.PASSED)
    evaluated = [(Mutant("x", "bug", paths.ROOT / "caught.py"), [passed, failed]),
                 (Mutant("x", "bug", paths.ROOT / "escapes.py"), [passed]),
                 (Mutant("x", "alt", paths.ROOT / "fine.py"), [passed]),
                 (Mutant("x", "alt", paths.ROOT / "fails.py"), [failed])]
    assert score_line("x", evaluated) == "x score: 1/2 bugs caught, 1/2 correct alternatives pass"
