"""pytest plugin: `--impl`, `--lang`, one test per case / property / quiz, a points table at the end.

    pytest                              # the default implementation (ini `attnlab_impl`, "reference" here)
    pytest --impl student_template      # every exercise fails as not implemented
    pytest --impl path/to/submission -m softmax --lang zh
"""

from pathlib import Path

import pytest

from harness import paths, shutdown
from harness.grading import (grade_quiz, load_reference, make_context, read_answers, summarise,
                             summarise_quiz)
from harness.checks import hint_line
from harness.impl import InProcessImpl
from harness.messages import default_lang, t
from harness.results import CheckResult
from harness.spec import QuizSpec
from harness.spec_load import load_course

STASH = pytest.StashKey[dict]()


def pytest_addoption(parser):
    group = parser.getgroup("attnlab")
    group.addoption("--impl", default=None, help="package directory to test (default: ini attnlab_impl)")
    group.addoption("--lang", default=None, choices=["en", "zh"], help="feedback language (default: locale)")
    parser.addini("attnlab_impl", "default package directory under test", default="reference")


def pytest_configure(config):
    shutdown.freeze_at_exit()
    course = load_course(paths.SPEC_DIR)
    for ex in course.exercises:
        config.addinivalue_line("markers", f"{ex.id}: checks of the {ex.id} exercise")
    impl_path = Path(config.getoption("--impl") or config.getini("attnlab_impl"))
    if not impl_path.is_absolute():
        impl_path = (Path(config.rootpath) / impl_path).resolve()
    config.stash[STASH] = {"course": course, "impl": InProcessImpl(impl_path, name=impl_path.name),
                           "lang": config.getoption("--lang") or default_lang(), "contexts": {}, "results": {}}


def pytest_generate_tests(metafunc):
    state = metafunc.config.stash[STASH]
    course = state["course"]
    for fixture, items in (("attnlab_case", _cases(course)), ("attnlab_property", _properties(course)),
                           ("attnlab_question", _questions(course))):
        if fixture in metafunc.fixturenames:
            metafunc.parametrize(fixture, [pytest.param(item, id=f"{ex.id}/{item.name}", marks=getattr(
                pytest.mark, ex.id)) for ex, item in items] if items else [], indirect=False)


def _cases(course):
    return [(ex, _Item(ex, c.name, c)) for ex in course.coded for c in ex.cases]


def _properties(course):
    return [(ex, _Item(ex, p.name, p)) for ex in course.coded for p in ex.properties]


def _questions(course):
    return [(ex, _Item(ex, q.id, q)) for ex in course.exercises if isinstance(ex, QuizSpec) for q in ex.questions]


class _Item:
    def __init__(self, exercise, name, spec):
        self.exercise, self.name, self.spec = exercise, name, spec

    def __repr__(self):
        return f"{self.exercise.id}/{self.name}"


def context_for(config, exercise):
    state = config.stash[STASH]
    if exercise.id not in state["contexts"]:
        state["contexts"][exercise.id] = make_context(exercise, state["impl"], lang=state["lang"])
    return state["contexts"][exercise.id]


def record(config, exercise, result: CheckResult) -> None:
    config.stash[STASH]["results"].setdefault(exercise.id, []).append(result)
    if not result.passed:
        hint = "" if isinstance(exercise, QuizSpec) else "\n" + hint_line(exercise, config.stash[STASH]["lang"])
        pytest.fail((result.message or result.status) + hint, pytrace=False)


def quiz_result(config, question_item) -> CheckResult:
    state = config.stash[STASH]
    quiz = question_item.exercise
    answers = read_answers(state["impl"].path / quiz.answers_file)
    reference = load_reference()
    key = read_answers(paths.REFERENCE_DIR / quiz.answers_file) if reference is not None else None
    if key is None:
        pytest.skip("the quiz key is not shipped here; it is graded by grade.py")
    result = grade_quiz(quiz, answers, key, lang=state["lang"])
    return next(c for c in result.checks if c.name == question_item.name)


def pytest_terminal_summary(terminalreporter, config):
    state = config.stash.get(STASH, None)
    if not state or not state["results"]:
        return
    lang, rows, earned, possible = state["lang"], [], 0.0, 0.0
    for ex in state["course"].exercises:
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
