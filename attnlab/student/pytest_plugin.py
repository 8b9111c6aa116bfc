"""pytest plugin: the exercises are collected from spec/<id>.yaml, one test item per case, law and quiz
question, marked with the exercise id; `--impl`, `--lang`; a points table at the end.

    pytest                              # the default implementation (ini `attnlab_impl`, "reference" here)
    pytest --impl student_template      # every exercise fails as not implemented
    pytest --impl path/to/submission -m softmax --lang zh

It is registered as a `pytest11` entry point of the installed package, so pytest loads it (and knows
`--impl`) wherever it runs; it collects only the spec files of this project.
"""

from pathlib import Path

import pytest

from attnlab.core import paths, shutdown
from attnlab.core.checks import hint_line, run_case, run_property
from attnlab.core.i18n import default_lang, t
from attnlab.core.impl import InProcessImpl
from attnlab.core.quiz import answer_key, grade_quiz, read_answers, summarise_quiz
from attnlab.core.results import CheckResult
from attnlab.core.scoring import make_context, summarise
from attnlab.core.spec import QuizSpec
from attnlab.core.spec_load import load_course

STATE = pytest.StashKey[dict]()


def pytest_addoption(parser):
    group = parser.getgroup("attnlab")
    group.addoption("--impl", default=None, help="package directory to test (default: ini attnlab_impl)")
    group.addoption("--lang", default=None, choices=["en", "zh"], help="feedback language (default: locale)")
    parser.addini("attnlab_impl", "default package directory under test", default="reference")


def pytest_configure(config):
    shutdown.freeze_at_exit()
    for path in sorted(paths.SPEC_DIR.glob("*.yaml")):  # file names only: loading waits for collection
        if path.stem != "course":
            config.addinivalue_line("markers", f"{path.stem}: checks of the {path.stem} exercise")
    impl_path = Path(config.getoption("--impl") or config.getini("attnlab_impl"))
    if not impl_path.is_absolute():
        impl_path = (Path(config.rootpath) / impl_path).resolve()
    config.stash[STATE] = {"course": None, "impl": InProcessImpl(impl_path, name=impl_path.name, libraries=()),
                           "lang": config.getoption("--lang") or default_lang(), "contexts": {}, "results": {}}


def _course(config):
    state = config.stash[STATE]
    if state["course"] is None:
        state["course"] = load_course(paths.SPEC_DIR)
        state["impl"].libraries = state["course"].libraries
    return state["course"]


def pytest_collect_file(file_path: Path, parent):
    if file_path.suffix != ".yaml" or file_path.parent.resolve() != paths.SPEC_DIR.resolve():
        return None
    ids = {e.id for e in _course(parent.config).everything}  # every assignment's (a handout holds one)
    return ExerciseFile.from_parent(parent, path=file_path) if file_path.stem in ids else None


class ExerciseFile(pytest.File):
    """spec/<id>.yaml: its cases, laws (or quiz questions) as test items."""

    def collect(self):
        exercise = _course(self.config).find(self.path.stem)
        if isinstance(exercise, QuizSpec):
            checks = [(q.id, "question", q) for q in exercise.questions]
        else:
            checks = [(c.name, "case", c) for c in exercise.cases] + [(p.name, "property", p)
                                                                      for p in exercise.properties]
        for name, kind, spec in checks:
            item = CheckItem.from_parent(self, name=name, exercise=exercise, kind=kind, spec=spec)
            item.add_marker(exercise.id)
            yield item


class CheckFailed(Exception):
    """A check of the implementation failed; its feedback is the whole report."""


class CheckItem(pytest.Item):
    def __init__(self, *, exercise, kind: str, spec, **kwargs):
        super().__init__(**kwargs)
        self.exercise, self.kind, self.spec = exercise, kind, spec

    def runtest(self):
        result = self._result()
        state = self.config.stash[STATE]
        state["results"].setdefault(self.exercise.id, []).append(result)
        if not result.passed:
            hint = "" if self.kind == "question" else "\n" + hint_line(self.exercise, state["lang"], [result])
            raise CheckFailed((result.message or str(result.status)) + hint)

    def _result(self) -> CheckResult:
        if self.kind == "question":
            return _question(self.config, self.exercise, self.spec)
        ctx = _context(self.config, self.exercise)
        return run_case(ctx, self.spec) if self.kind == "case" else run_property(ctx, self.spec)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, CheckFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, None, f"{self.exercise.id}/{self.name}"


def _context(config, exercise):
    state = config.stash[STATE]
    if exercise.id not in state["contexts"]:
        state["contexts"][exercise.id] = make_context(exercise, state["impl"], lang=state["lang"])
    return state["contexts"][exercise.id]


def _question(config, quiz: QuizSpec, question) -> CheckResult:
    state = config.stash[STATE]
    key = answer_key(quiz)
    if key is None:
        pytest.skip("the quiz key is not shipped here; it is graded by grade.py")
    answers = read_answers(state["impl"].path / quiz.answers_file)
    result = grade_quiz(quiz, answers, key, lang=state["lang"])
    return next(c for c in result.checks if c.name == question.id)


def pytest_terminal_summary(terminalreporter, config):
    state = config.stash.get(STATE, None)
    if not state or not state["results"]:
        return
    lang, rows, earned, possible = state["lang"], [], 0.0, 0.0
    for ex in _course(config).everything:
        checks = state["results"].get(ex.id)
        if not checks:
            continue
        result = summarise_quiz(ex, checks, lang) if isinstance(ex, QuizSpec) else summarise(ex, checks, lang)
        rows.append((ex.id, result.status, result.score, ex.points, sum(c.passed for c in checks), len(checks)))
        earned, possible = earned + result.score, possible + ex.points
    tr = terminalreporter
    tr.section(t("summary_title", lang, impl=state["impl"].name))
    tr.write_line(f"{'exercise':<36}{'status':<17}{'checks':>8}{'points':>14}")
    for ex_id, status, score, points, passed, total in rows:
        tr.write_line(f"{ex_id:<36}{status:<17}{passed:>4}/{total:<3}{score:>9.2f} / {points:g}")
    tr.write_line(f"{t('total', lang):<36}{'':<17}{'':>8}{earned:>9.2f} / {possible:g}")
