"""From checks to an ExerciseResult: which checks run, and how they score.

Scoring: score = points × (cases passed / cases) × (1 + properties passed / properties) / 2. Properties
scale the case score rather than add to it: a function returning zeros satisfies causality and
permutation laws, and must not earn points for that alone; failing every law halves the case score.
Likewise a case a constant function passes (no value check, or a constant expected output such as
dropout with p = 1) counts only once some other case passes. A forbidden call anywhere scores the
exercise 0. Status is "passed" when all pass, "failed" when some pass,
else the most telling status of the failures (status.SEVERITY).
"""

import importlib
from dataclasses import replace
from pathlib import Path
from types import ModuleType

from attnlab.core import devices, leading_dims, paths
from attnlab.core.checks import Context, hint_line, run_cases, run_property
from attnlab.core.explain import earned_checks, score_explanation
from attnlab.core.i18n import t
from attnlab.core.impl import Implementation, find_function, load_package
from attnlab.core.results import CheckResult, ExerciseResult
from attnlab.core.said_once import SaidOnce
from attnlab.core.spec import Course, ExerciseSpec
from attnlab.core.status import EXCLUDED, SEVERITY, STOPS, Status

FEEDBACK_FAILURES = 3  # failures quoted in an exercise's feedback; the rest are counted


def load_reference() -> ModuleType | None:
    """The trusted reference package, or None where it is not shipped (a student handout)."""
    try:
        return importlib.import_module("reference")
    except ModuleNotFoundError:
        return None


def signature_source(exercise: ExerciseSpec, reference: ModuleType | None):
    """The function whose annotations define expected shapes: the reference's, else the pristine stub's."""
    package = reference if reference is not None else load_package(paths.TEMPLATE_DIR)
    return find_function(package, exercise.module, exercise.function)


def make_context(exercise: ExerciseSpec, impl: Implementation, *, lang: str = "en",
                 fresh_seed: int | None = None, reference: ModuleType | None = None,
                 fixtures_dir: Path | None = paths.FIXTURES_DIR, device: str = "cpu") -> Context:
    reference = reference if reference is not None else load_reference()
    if device != "cpu" and devices.available(device):
        devices.exact_float32()
    return Context(exercise=exercise, impl=impl, reference=reference,
                   signature=signature_source(exercise, reference), lang=lang, fresh_seed=fresh_seed,
                   fixtures_dir=fixtures_dir, device=device)


def run_checks(ctx: Context, *, visible_only: bool = False) -> list[CheckResult]:
    """All checks of the exercise; after an outcome in status.STOPS the rest are not run."""
    results: list[CheckResult] = []

    def stopped() -> Status | None:
        return results[-1].status if results and results[-1].status in STOPS else None

    cases = [c for c in ctx.exercise.cases if c.visible or not visible_only]
    case_results = run_cases(ctx, cases)  # a generator: see run_cases
    for case in cases:
        status = stopped()
        result = CheckResult(case.name, False, status, "") if status else next(case_results)
        results.append(replace(result, visible=case.visible))
    results = leading_dims.with_hints(ctx.signature, cases, results, ctx.lang)
    for prop in ctx.exercise.properties:
        if prop.visible or not visible_only:
            status = stopped()
            result = CheckResult(prop.name, False, status, "", kind="property") if status else run_property(ctx, prop)
            results.append(replace(result, visible=prop.visible))
    return results


def summarise(exercise: ExerciseSpec, checks: list[CheckResult], lang: str) -> ExerciseResult:
    """A check that does not apply (status.EXCLUDED: a dtype the framework lacks) is shown and left out of
    the score; an exercise none of whose checks applies is itself not applicable and scores nothing."""
    shown = checks
    checks = [c for c in checks if c.status not in EXCLUDED]
    passed = sum(c.passed for c in checks)
    statuses = {c.status for c in checks if not c.passed}
    if not checks and shown:
        status, score = Status.NOT_APPLICABLE, 0.0
    elif Status.FORBIDDEN in statuses:
        status, score = Status.FORBIDDEN, 0.0
    elif not statuses:
        status, score = Status.PASSED, exercise.points
    else:
        status = Status.FAILED if passed else next(s for s in SEVERITY if s in statuses)
        score = exercise.points * _fraction(checks, "case") * (1 + _fraction(checks, "property")) / 2
    # distinct messages only: a problem every check shares (an import failure) is quoted once, and a
    # diagnosis or hint under the first failure that names it
    once = SaidOnce(lang)
    failures = [once.filter(m) for m in dict.fromkeys(c.message for c in checks if not c.passed and c.message)]
    not_applicable = list(dict.fromkeys(c.message for c in shown if c.status in EXCLUDED and c.message))
    feedback = "\n".join(failures[:FEEDBACK_FAILURES]) if failures else t("passed", lang)
    if len(failures) > FEEDBACK_FAILURES:
        feedback += "\n" + t("more_failures", lang, count=len(failures) - FEEDBACK_FAILURES)
    if failures and status != Status.NOT_IMPLEMENTED:
        feedback += "\n" + once.filter(hint_line(exercise, lang, checks))
    if status == Status.FAILED and passed:  # some checks passed: how they turned into points
        feedback += "\n" + score_explanation(exercise, checks, score, lang)
    if not_applicable:
        feedback += "\n" + "\n".join(not_applicable)
    return ExerciseResult(id=exercise.id, function=exercise.function, score=round(score, 4),
                          max_score=exercise.points, status=status, feedback=feedback, checks=tuple(shown))


def not_applicable_results(course: Course, lang: str) -> list[ExerciseResult]:
    """The assignment's exercises that do not apply in its framework (Course.not_applicable): shown, worth
    nothing either way (their points left course.total_points), each saying why."""
    return [ExerciseResult(ex.id, ex.function, 0.0, 0.0, Status.NOT_APPLICABLE, not_applicable_text(ex, course, lang))
            for ex in course.not_applicable]


def not_applicable_text(exercise: ExerciseSpec, course: Course, lang: str) -> str:
    return t("not_applicable_triton", lang, exercise=exercise.id, framework=course.framework, points=exercise.points)


def _fraction(checks: list[CheckResult], kind: str) -> float:
    earned, total, _ = earned_checks(checks, kind)
    return earned / total if total else 1.0


def grade_exercise(ctx: Context, *, visible_only: bool = False) -> ExerciseResult:
    if not devices.available(ctx.device):  # said, never skipped silently
        text = t("not_run_device", ctx.lang, exercise=ctx.exercise.id, device=ctx.device)
        return ExerciseResult(ctx.exercise.id, ctx.exercise.function, 0.0, ctx.exercise.points, Status.NOT_RUN, text)
    return summarise(ctx.exercise, run_checks(ctx, visible_only=visible_only), ctx.lang)
