"""From checks to an ExerciseResult: which checks run, how they score, and the quiz.

Scoring: score = points × (cases passed / cases) × (1 + properties passed / properties) / 2. Properties
scale the case score rather than add to it: a function returning zeros satisfies causality and
permutation laws, and must not earn points for that alone; failing every law halves the case score. A forbidden call anywhere scores the exercise 0. Status is "passed"
when all pass, "failed" when some pass, else the most telling status of the failures
(forbidden > timeout > memory > error > not_implemented).
"""

import importlib
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml

from harness import paths
from harness.checks import Context, hint_line, run_cases, run_property
from harness.impl import Implementation, find_function, load_package
from harness.messages import t
from harness.results import CheckResult, ExerciseResult
from harness.spec import ExerciseSpec, QuizSpec
from harness.spec_load import load_safe_yaml

SEVERITY = ("forbidden", "timeout", "memory", "error", "not_implemented", "failed")
MAX_ANSWERS_BYTES = 64 * 1024


def load_reference() -> ModuleType | None:
    """The trusted reference package, or None where it is not shipped (a student handout)."""
    try:
        return importlib.import_module("reference")
    except ModuleNotFoundError:
        return None


def signature_source(exercise: ExerciseSpec, reference: ModuleType | None):
    """The function whose annotations define expected shapes: the reference's, else the pristine stub's."""
    if reference is not None:
        return getattr(reference, exercise.function)
    return find_function(load_package(paths.TEMPLATE_DIR), exercise.module, exercise.function)


def make_context(exercise: ExerciseSpec, impl: Implementation, *, lang: str = "en",
                 fresh_seed: int | None = None, reference: ModuleType | None = None,
                 fixtures_dir: Path | None = paths.FIXTURES_DIR) -> Context:
    reference = reference if reference is not None else load_reference()
    return Context(exercise=exercise, impl=impl, reference=reference,
                   signature=signature_source(exercise, reference), lang=lang, fresh_seed=fresh_seed,
                   fixtures_dir=fixtures_dir)


def run_checks(ctx: Context, *, visible_only: bool = False) -> list[CheckResult]:
    """All checks of the exercise; after a not-implemented or timeout outcome the rest are not run."""
    results: list[CheckResult] = []

    def stopped() -> str | None:
        return results[-1].status if results and results[-1].status in ("not_implemented", "timeout") else None

    cases = [c for c in ctx.exercise.cases if c.visible or not visible_only]
    case_results = run_cases(ctx, cases)  # a generator: see run_cases
    for case in cases:
        status = stopped()
        results.append(CheckResult(case.name, False, status, "") if status else next(case_results))
    for prop in ctx.exercise.properties:
        if prop.visible or not visible_only:
            status = stopped()
            results.append(CheckResult(prop.name, False, status, "", kind="property") if status
                           else run_property(ctx, prop))
    return results


def summarise(exercise: ExerciseSpec, checks: list[CheckResult], lang: str) -> ExerciseResult:
    passed = sum(c.passed for c in checks)
    statuses = {c.status for c in checks if not c.passed}
    if "forbidden" in statuses:
        status, score = "forbidden", 0.0
    elif not statuses:
        status, score = "passed", exercise.points
    else:
        status = "failed" if passed else next(s for s in SEVERITY if s in statuses)
        score = exercise.points * _fraction(checks, "case") * (1 + _fraction(checks, "property")) / 2
    failures = [c.message for c in checks if not c.passed and c.message]
    feedback = "\n".join(failures[:3]) if failures else t("passed", lang)
    if len(failures) > 3:
        feedback += f"\n(+{len(failures) - 3} more)"
    if failures and status != "not_implemented":
        feedback += "\n" + hint_line(exercise, lang)
    return ExerciseResult(id=exercise.id, function=exercise.function, score=round(score, 4),
                          max_score=exercise.points, status=status, feedback=feedback, checks=tuple(checks))


def _fraction(checks: list[CheckResult], kind: str) -> float:
    of_kind = [c for c in checks if c.kind == kind]
    return sum(c.passed for c in of_kind) / len(of_kind) if of_kind else 1.0


def grade_exercise(ctx: Context, *, visible_only: bool = False) -> ExerciseResult:
    return summarise(ctx.exercise, run_checks(ctx, visible_only=visible_only), ctx.lang)


def read_answers(path: Path) -> dict[str, Any]:
    """The student's quiz answers (data only, size-capped, safe YAML); {} when absent or unreadable."""
    if not path.is_file() or path.stat().st_size > MAX_ANSWERS_BYTES:
        return {}
    try:
        data = load_safe_yaml(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError):
        return {}
    answers = data.get("answers") if isinstance(data, dict) else None
    return answers if isinstance(answers, dict) else {}


def _correct(question, given: Any, expected: Any) -> bool:
    if given is None:
        return False
    if question.kind == "numeric":
        try:
            return abs(float(given) - float(expected)) <= question.tolerance
        except (TypeError, ValueError):
            return False
    return str(given).strip().lower() == str(expected).strip().lower()


def grade_quiz(quiz: QuizSpec, answers: dict[str, Any], key: dict[str, Any], *, lang: str) -> ExerciseResult:
    checks = []
    for q in quiz.questions:
        given = answers.get(q.id)
        ok = _correct(q, given, key[q.id])
        status = "passed" if ok else ("not_implemented" if given is None else "failed")
        message = "" if ok else f"quiz · {q.id}: {q.prompt.get(lang)} — " + (
            "not answered" if given is None else f"your answer {given!r} is not right")
        checks.append(CheckResult(q.id, ok, status, message))
    return summarise_quiz(quiz, checks, lang)


def summarise_quiz(quiz: QuizSpec, checks: list[CheckResult], lang: str) -> ExerciseResult:
    """Each question scores its own points; the quiz has no function (results show null)."""
    points = {q.id: q.points for q in quiz.questions}
    score = sum(points[c.name] for c in checks if c.passed)
    statuses = {c.status for c in checks}
    status = "passed" if statuses == {"passed"} else (
        "not_implemented" if statuses == {"not_implemented"} else "failed")
    failures = [c.message for c in checks if c.message]
    return ExerciseResult(id=quiz.id, function=None, score=score, max_score=quiz.points, status=status,
                          feedback="\n".join(failures) or t("passed", lang), checks=tuple(checks))
