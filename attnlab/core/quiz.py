"""The quiz: the student's answers file, the answer key (reference/<answers_file>, instructors only) and how
answers score. Each question scores its own points; the quiz has no function (results show null).
"""

from pathlib import Path
from typing import Any

import yaml

from attnlab.core import paths
from attnlab.core.i18n import t
from attnlab.core.results import CheckResult, ExerciseResult
from attnlab.core.spec import QuizSpec
from attnlab.core.spec_load import load_safe_yaml
from attnlab.core.status import Status

MAX_ANSWERS_BYTES = 64 * 1024


def read_answers(path: Path) -> dict[str, Any]:
    """Answers in a YAML file (data only, size-capped, safe YAML); {} when absent or unreadable."""
    if not path.is_file() or path.stat().st_size > MAX_ANSWERS_BYTES:
        return {}
    try:
        data = load_safe_yaml(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError):
        return {}
    answers = data.get("answers") if isinstance(data, dict) else None
    return answers if isinstance(answers, dict) else {}


def answer_key(quiz: QuizSpec) -> dict[str, Any] | None:
    """The quiz's key, from reference/: None where it is not shipped (a student handout)."""
    path = paths.REFERENCE_DIR / quiz.answers_file
    return read_answers(path) if path.is_file() else None


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
        status = Status.PASSED if ok else (Status.NOT_IMPLEMENTED if given is None else Status.FAILED)
        verdict = t("quiz_not_answered", lang) if given is None else t("quiz_wrong", lang, given=repr(given))
        message = "" if ok else t("quiz_line", lang, id=q.id, prompt=q.prompt.get(lang), verdict=verdict)
        checks.append(CheckResult(q.id, ok, status, message))
    return summarise_quiz(quiz, checks, lang)


def summarise_quiz(quiz: QuizSpec, checks: list[CheckResult], lang: str) -> ExerciseResult:
    points = {q.id: q.points for q in quiz.questions}
    score = sum(points[c.name] for c in checks if c.passed)
    statuses = {c.status for c in checks}
    status = Status.PASSED if statuses == {Status.PASSED} else (
        Status.NOT_IMPLEMENTED if statuses == {Status.NOT_IMPLEMENTED} else Status.FAILED)
    failures = [c.message for c in checks if c.message]
    return ExerciseResult(id=quiz.id, function=None, score=score, max_score=quiz.points, status=status,
                          feedback="\n".join(failures) or t("passed", lang), checks=tuple(checks))
