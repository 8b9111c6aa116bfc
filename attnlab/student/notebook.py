"""The checks from a Jupyter cell: `check("softmax", my_softmax)` runs the exercise's visible checks
on one function and prints the same feedback as `attnlab check` (the misconception diagnosis included).

    from attnlab.student.notebook import check, hint
    result = check("softmax", my_softmax)          # an ExerciseResult; result.status == "passed" when done
    hint("softmax", lang="zh")

The function is called by keyword exactly like `run_softmax` (same argument names); its name does not
matter. The exercise's other functions are not needed: only `fn` is checked.
"""

from collections.abc import Callable

from attnlab.core import paths
from attnlab.core.i18n import default_lang
from attnlab.core.impl import FunctionImpl
from attnlab.core.results import ExerciseResult
from attnlab.core.scoring import grade_exercise, make_context
from attnlab.core.spec import ExerciseSpec, QuizSpec
from attnlab.core.spec_load import load_course
from attnlab.student.text import render_hints, render_result, say


class UnknownExercise(ValueError):
    """No such coded exercise (the message lists the known ids), or the quiz, which has no function."""


def exercise_spec(exercise_id: str, lang: str) -> ExerciseSpec:
    """The coded exercise `exercise_id`; UnknownExercise naming the known ids (or the quiz's answers file)."""
    course = load_course(paths.SPEC_DIR)
    try:
        exercise = course.find(exercise_id)  # any assignment's (a handout holds one)
    except KeyError:
        raise UnknownExercise(say("unknown_exercise", lang, id=exercise_id,
                             known=", ".join(e.id for e in course.everything))) from None
    if isinstance(exercise, QuizSpec):
        raise UnknownExercise(say("quiz_not_checkable", lang, file=exercise.answers_file))
    return exercise


def check(exercise_id: str, fn: Callable, *, lang: str | None = None, show: bool = True) -> ExerciseResult:
    """Run the visible checks of `exercise_id` on `fn`; print the feedback (unless show=False)."""
    lang = lang or default_lang()
    exercise = exercise_spec(exercise_id, lang)
    ctx = make_context(exercise, FunctionImpl(fn, function=exercise.function), lang=lang)
    result = grade_exercise(ctx, visible_only=True)
    if show:
        print(render_result(exercise, result, lang))
    return result


def hint(exercise_id: str, *, lang: str | None = None, show: bool = True) -> str:
    """What `exercise_id` asks for and its hints; printed, and returned."""
    lang = lang or default_lang()
    text = render_hints(exercise_spec(exercise_id, lang), lang)
    if show:
        print(text)
    return text
