"""When the judge's own code fails: an internal error of that check, exercise or submission, never a crash.

A student's output reaches laws, comparisons, diagnosis and pictures only after attnlab.core.checks has
validated it (count, type, shape, dtype, device), and they treat NaN and inf as values that fail. An exception
that still comes out of a check is the judge's fault: that check becomes Status.INTERNAL_ERROR, with a
sentence for the student (the check could not be finished; the other results stand) and the traceback kept
for the instructor (CheckResult.internal, in the result's JSON and on grade.py's stderr, never in the
feedback). It counts as not passed: a judge fault never raises a score, and the instructor can regrade once
it is fixed. The rest of the exercise, the submission and the class are graded as usual.
"""

import sys
import traceback

from attnlab.core.i18n import t
from attnlab.core.results import CheckResult, ExerciseResult
from attnlab.core.status import Status


def traceback_text(exc: BaseException) -> str:
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)).rstrip()


def internal_check(exercise_id: str, name: str, kind: str, exc: BaseException, lang: str) -> CheckResult:
    """The result of check `name` (a case or a property) whose judging raised `exc`."""
    message = t("internal_check", lang, exercise=exercise_id, name=name, type=type(exc).__name__)
    return CheckResult(name, False, Status.INTERNAL_ERROR, message, kind=kind, internal=traceback_text(exc))


def internal_exercise(exercise, exc: BaseException, lang: str) -> ExerciseResult:
    """An exercise whose grading raised outside any one check (e.g. its context could not be made)."""
    check = internal_check(exercise.id, exercise.id, "case", exc, lang)
    return ExerciseResult(exercise.id, exercise.function, 0.0, exercise.points, Status.INTERNAL_ERROR,
                          check.message, checks=(check,))


def internal_tracebacks(exercises) -> list[tuple[str, str, str]]:
    """(exercise, check, traceback) of every internal error among `exercises` (ExerciseResults)."""
    return [(e.id, c.name, c.internal) for e in exercises for c in e.checks if c.internal]


def report(submission: str, exercises, file=None) -> None:
    """Tell the instructor (stderr: a terminal, a log, Gradescope's hidden stdout) of each internal error."""
    for exercise_id, check, text in internal_tracebacks(exercises):
        print(f"attnlab: internal error grading {submission}, {exercise_id} · {check} (the result is kept, this "
              f"check counts as not passed):\n{text}", file=file or sys.stderr)
