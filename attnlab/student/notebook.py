"""The checks from a Jupyter cell: `check("softmax", my_softmax)` runs the exercise's visible checks
on one function and shows the same feedback as `attnlab check` (the misconception diagnosis included).

    from attnlab.student.notebook import check, hint
    result = check("softmax", my_softmax)          # result.status == "passed" when done; result.checks
    hint("softmax", lang="zh")                     # framework="numpy": in a NumPy student's words

Feedback is shown once: as HTML in Jupyter (and other IPython frontends), as text elsewhere. What check()
and hint() return does not show it a second time when it is a cell's last value; shown in a later cell
(`result` alone) it displays again, and in a plain Python prompt its repr is one line.

The function is called by keyword exactly like `run_softmax` (same argument names); its name does not
matter. The exercise's other functions are not needed: only `fn` is checked (but when it fails and calls
another exercise's function of the notebook by its name, `run_softmax`, that one's visible checks run too,
and a failure there is named first: attnlab.core.callees). Its calls share the time
limit an exercise has when graded (attnlab.student.timer).
"""

import functools
import sys
from collections.abc import Callable

from attnlab.core import callees, config, paths
from attnlab.core.i18n import default_lang, t
from attnlab.core.impl import FunctionImpl
from attnlab.core.results import ExerciseResult
from attnlab.core.scoring import grade_exercise, make_context, not_applicable_text
from attnlab.core.spec import Course, ExerciseSpec, QuizSpec
from attnlab.core.spec_load import load_course
from attnlab.core.status import Status
from attnlab.student.html_view import as_html
from attnlab.student.text import Line, as_text, hint_lines, result_lines, say, status_word
from attnlab.student.timer import time_limited


class UnknownExercise(ValueError):
    """No such coded exercise (the message lists the known ids), or the quiz, which has no function."""


def exercise_spec(exercise_id: str, lang: str, course: Course | None = None) -> ExerciseSpec:
    """The coded exercise `exercise_id`; UnknownExercise naming the known ids (or the quiz's answers file)."""
    course = course or load_course(paths.SPEC_DIR)
    try:
        exercise = course.find(exercise_id)  # any assignment's (a handout holds one)
    except KeyError:
        raise UnknownExercise(say("unknown_exercise", lang, id=exercise_id,
                             known=", ".join(e.id for e in course.everything))) from None
    if isinstance(exercise, QuizSpec):
        raise UnknownExercise(say("quiz_not_checkable", lang, file=exercise.answers_file))
    if any(ex.id == exercise_id for ex in course.not_applicable):  # Triton outside torch: says why
        raise UnknownExercise(not_applicable_text(exercise, course, lang))
    return exercise


def _shell():
    """The running IPython shell (Jupyter kernel or terminal), or None; IPython is never imported here."""
    ipython = sys.modules.get("IPython")
    return ipython.get_ipython() if ipython is not None else None


class Shown:
    """Feedback shown once: `show()` displays it (HTML in IPython, text elsewhere); IPython does not
    display it again as the value of the cell that showed it."""

    def __init__(self, lines: list[Line]):
        self.lines, self.text = lines, as_text(lines)
        self._shown_in: int | None = None  # the IPython cell that showed it

    def _repr_html_(self) -> str:
        return as_html(self.lines)

    def _ipython_display_(self) -> None:
        shell = _shell()
        if shell is not None and self._shown_in == shell.execution_count:
            return  # check() showed it in this very cell: the cell's value must not repeat it
        from IPython.display import display

        display({"text/plain": self.text, "text/html": self._repr_html_()}, raw=True)

    def show(self) -> None:
        shell = _shell()
        if shell is None:
            print(self.text)
            return
        self._shown_in = None
        self._ipython_display_()
        self._shown_in = shell.execution_count

    def __str__(self) -> str:
        return self.text


class CheckReport(Shown):
    """What check() returns: the ExerciseResult (`.result`; its fields also read directly: `.status`,
    `.score`, `.checks`, `.feedback`) and the feedback shown for it."""

    def __init__(self, result: ExerciseResult, lines: list[Line], lang: str):
        super().__init__(lines)
        self.result, self._lang = result, lang

    def __getattr__(self, name: str):
        if name.startswith("_"):  # IPython probes _repr_*_ methods; never forward private names
            raise AttributeError(name)
        return getattr(self.result, name)

    def __repr__(self) -> str:
        r = self.result
        return t("student.nb_result", self._lang, id=r.id, status=status_word(r.status, self._lang), score=r.score,
                 points=r.max_score)


class HintText(str):
    """What hint() returns: the text itself (a str), shown once like check()'s feedback."""

    def __new__(cls, lines: list[Line], exercise_id: str, lang: str):
        text = super().__new__(cls, as_text(lines))
        text.shown = Shown(lines)
        text._label = t("student.nb_hint", lang, id=exercise_id)
        return text

    def _repr_html_(self) -> str:
        return self.shown._repr_html_()

    def _ipython_display_(self) -> None:
        self.shown._ipython_display_()

    def __repr__(self) -> str:
        return self._label


@functools.lru_cache(maxsize=8)
def _run(assignment: str | None, framework: str | None, device: str, lang: str) -> config.Run:
    """The run, resolved once per kernel for each choice: a notebook checks one exercise per cell, and
    loading every spec took most of a check's second."""
    return config.resolve(assignment=assignment, framework=framework, device=device, lang=lang)


def check(exercise_id: str, fn: Callable, *, lang: str | None = None, show: bool = True,
          framework: str | None = None, assignment: str | None = None, device: str = "cpu") -> CheckReport:
    """Run the visible checks of `exercise_id` on `fn`; show the feedback (unless show=False). `fn` is
    written in `framework` (default: the assignment's, from course.yaml) and runs on `device`."""
    run = _run(assignment, framework, device, lang or default_lang())
    lang = run.lang
    exercise = exercise_spec(exercise_id, lang, run.course)
    result = _checked(exercise, fn, run)
    note = None
    if result.status != Status.PASSED:  # built on another of the student's functions that fails too?
        reached = [(e, f) for e, f in callees.reached_from(fn, run.course.all_coded) if e.id != exercise.id]
        note = callees.note(result, [_checked(e, f, run) for e, f in reached], lang)
    report = CheckReport(result, result_lines(exercise, result, lang, notebook=True, note=note), lang)
    if show:
        report.show()
    return report


def _checked(exercise: ExerciseSpec, fn: Callable, run: config.Run) -> ExerciseResult:
    impl = time_limited(FunctionImpl(fn, function=exercise.function, adapter=run.adapter), exercise.id, run.limits)
    return grade_exercise(make_context(exercise, impl, lang=run.lang, device=run.device), visible_only=True)


def hint(exercise_id: str, *, lang: str | None = None, show: bool = True, framework: str | None = None,
         assignment: str | None = None) -> HintText:
    """What `exercise_id` asks for and its hints, in the words of `framework` (default: the assignment's, from
    course.yaml); shown (unless show=False), and returned as text."""
    lang = lang or default_lang()
    course = load_course(paths.SPEC_DIR, assignment, framework)
    text = HintText(hint_lines(exercise_spec(exercise_id, lang, course), lang), exercise_id, lang)
    if show:
        text.shown.show()
    return text
