"""pytest plugin: the exercises are collected from spec/<id>.yaml, one test item per case, law and quiz
question, marked with the exercise id; `--impl`, `--lang`; a points table at the end.

    pytest                              # the default implementation (ini `attnlab_impl`, "reference" here)
    pytest --impl student_template      # every exercise fails as not implemented
    pytest --impl path/to/submission -m softmax --lang zh

It is registered as a `pytest11` entry point of the installed package, so pytest loads it (and knows
`--impl`) wherever it runs; it collects only the spec files of this project.

The report stays short while little is done: an exercise whose first check finds it not implemented (or
out of time) reports that once, as "not implemented" rather than a failure, and its other checks are
skipped, as grading stops there too; a failure word for word the same as one above (code that does not
import) is reported once. The points table ends the run, in the chosen language.
"""

from pathlib import Path

import pytest

from attnlab.core import callees, frameworks, paths, shutdown
from attnlab.core import config as run_config
from attnlab.core.checks import hint_line, run_case, run_property
from attnlab.core.columns import pad
from attnlab.core.i18n import default_lang, t
from attnlab.core.impl import InProcessImpl
from attnlab.core.quiz import answer_key, grade_quiz, problem_lines, quiz_state, read_answers, summarise_quiz
from attnlab.core.results import CheckResult
from attnlab.core.said_once import SaidOnce
from attnlab.core.scoring import make_context, not_applicable_results, summarise
from attnlab.core.spec import ExerciseSpec, QuizSpec, SpecError
from attnlab.core.status import EXCLUDED, STOPS, Status
from attnlab.student.text import counted, quiz_word, status_word
from attnlab.student.timer import time_limited

STATE = pytest.StashKey[dict]()


def pytest_addoption(parser):
    group = parser.getgroup("attnlab")
    group.addoption("--impl", default=None, help="package directory to test (default: ini attnlab_impl)")
    parser.addini("attnlab_impl", "default package directory under test", default="reference")
    run_config.add_pytest_options(parser)  # --assignment, --framework, --device, --lang: as attnlab and grade.py


def pytest_configure(config):
    shutdown.freeze_at_exit()
    for path in sorted(paths.SPEC_DIR.glob("*.yaml")):  # file names only: loading waits for collection
        if path.stem != "course":
            config.addinivalue_line("markers", f"{path.stem}: checks of the {path.stem} exercise")
    impl_path = Path(config.getoption("--impl") or config.getini("attnlab_impl"))
    if not impl_path.is_absolute():
        impl_path = (Path(config.rootpath) / impl_path).resolve()
    options = {name: run_config.pytest_value(config, name) for name in run_config.RUN_OPTIONS}
    config.stash[STATE] = {"run": None, "options": options, "impl": None, "impl_path": impl_path,
                           "lang": options["lang"] or default_lang(), "contexts": {}, "results": {},
                           "stopped": {}, "reported": {}}


def _run(config) -> run_config.Run:
    """The run, resolved once the specs are first needed (collection): its course, adapter and limits."""
    state = config.stash[STATE]
    if state["run"] is None:
        try:
            run = run_config.resolve(**{**state["options"], "lang": state["lang"]})
        except (SpecError, ValueError) as exc:
            raise pytest.UsageError(str(exc)) from None
        state["run"] = run
        # without --assignment every assignment's exercises are collected: each may use its assignment's libraries
        libraries = run.course.libraries if state["options"]["assignment"] else run.course.every_library
        state["impl"] = InProcessImpl(state["impl_path"], name=state["impl_path"].name, libraries=libraries,
                                      adapter=run.adapter)
    return state["run"]


def _course(config):
    return _run(config).course


def _collected(config) -> set[str]:
    """With --assignment, its exercises; else every assignment's that can be written in the chosen framework
    (a handout holds one assignment)."""
    course = _course(config)
    if config.stash[STATE]["options"]["assignment"] is not None:
        return {e.id for e in course.exercises}
    return {e.id for e in course.everything if course.framework in getattr(e, "frameworks", (course.framework,))}


def pytest_collect_file(file_path: Path, parent):
    if file_path.suffix != ".yaml" or file_path.parent.resolve() != paths.SPEC_DIR.resolve():
        return None
    try:
        wanted = _collected(parent.config)
    except pytest.UsageError as exc:  # a broken spec: its file and key alone, not pytest's and pluggy's frames
        raise pytest.Collector.CollectError(str(exc)) from None
    return ExerciseFile.from_parent(parent, path=file_path) if file_path.stem in wanted else None


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
    not_implemented = False  # reported in its own category, not as a failure (see the module docstring)

    def __init__(self, *, exercise, kind: str, spec, **kwargs):
        super().__init__(**kwargs)
        self.exercise, self.kind, self.spec = exercise, kind, spec

    def runtest(self):
        state = self.config.stash[STATE]
        lang, results = state["lang"], state["results"].setdefault(self.exercise.id, [])
        stopped = state["stopped"].get(self.exercise.id)
        if stopped is not None:  # grading would not run it either
            results.append(CheckResult(self.name, False, stopped.status, "", kind=self._kind()))
            pytest.skip(t("student.not_run_after", lang, id=self.exercise.id, check=stopped.name,
                          status=status_word(stopped.status, lang)))
        result = self._result()
        results.append(result)
        if result.passed:
            return
        if result.status in EXCLUDED:  # not applicable in the framework (a dtype it lacks, NumPy's gradient law)
            pytest.skip(result.message)
        self.not_implemented = result.status == Status.NOT_IMPLEMENTED  # a stub, or a question not answered
        if result.status in STOPS and self.kind != "question":
            state["stopped"][self.exercise.id] = result
        first = state["reported"].setdefault(result.message, f"{self.exercise.id}/{self.name}")
        if result.message and first != f"{self.exercise.id}/{self.name}":
            pytest.skip(t("student.not_run_same", lang, where=first))
        hint = "" if self.kind == "question" else "\n" + hint_line(self.exercise, lang, [result])
        once = state.setdefault("said", {}).setdefault(self.exercise.id, SaidOnce(lang))  # under its first failure
        raise CheckFailed(once.filter((result.message or str(result.status)) + hint))

    def _kind(self) -> str:
        return "property" if self.kind == "property" else "case"

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
        # one time limit per exercise, shared by its items, as in grading
        run = _run(config)
        impl = time_limited(state["impl"], exercise.id, run.limits)
        state["contexts"][exercise.id] = make_context(exercise, impl, lang=state["lang"], device=run.device)
    return state["contexts"][exercise.id]


def _question(config, quiz: QuizSpec, question) -> CheckResult:
    """Graded against the key where it is here; in a handout (no key) only the answer's format is checked."""
    state = config.stash[STATE]
    key = answer_key(quiz)
    if key is None:
        answers = quiz_state(quiz, state["impl_path"])
        problems = problem_lines(quiz, answers, state["lang"]) if answers.file_problem else [
            t("quiz_format_line", state["lang"], file=quiz.answers_file, id=question.id, problem=problem)
            for problem in [answers.answers[question.id].problem] if problem is not None]
        if problems:
            return CheckResult(question.id, False, Status.FAILED, problems[0])
        said = "quiz_answered" if answers.answers[question.id].given else "quiz_unanswered"
        pytest.skip(t("student.quiz_later", state["lang"], state=t(f"student.{said}", state["lang"])))
    answers = read_answers(state["impl_path"] / quiz.answers_file)
    result = grade_quiz(quiz, answers, key, lang=state["lang"])
    return next(c for c in result.checks if c.name == question.id)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if call.when == "call" and getattr(item, "not_implemented", False):
        report.attnlab_not_implemented = True
    return report


def pytest_report_teststatus(report, config):
    if getattr(report, "attnlab_not_implemented", False):
        state = config.stash.get(STATE, None)
        word = t("student.not_implemented_word", state["lang"] if state else "en")
        return word, "N", (word.upper(), {"yellow": True})
    return None


COLUMNS = (36, 18, 10)  # exercise, status, checks; then points


def _row(*cells: str) -> str:
    return "".join(pad(cell, width) for cell, width in zip(cells, COLUMNS)) + cells[-1]


def _not_implemented_lines(config, lang: str) -> list[str]:
    stopped = config.stash[STATE]["stopped"]
    missing = [ex for ex in _course(config).everything
               if ex.id in stopped and stopped[ex.id].status == Status.NOT_IMPLEMENTED]
    return [t("student.not_implemented_row", lang, id=ex.id, function=ex.function, module=ex.module) for ex in missing]


def _quiz_row(quiz: QuizSpec, state: dict) -> str:
    """The quiz where its key is not here (a handout): how much is answered, graded when submitted."""
    answers, lang = quiz_state(quiz, state["impl_path"]), state["lang"]
    return _row(quiz.id, quiz_word(answers, lang), f"{answers.answered}/{len(quiz.questions)}",
                f"  – / {quiz.points:g}  ({t('cli.quiz_later', lang)})")


def pytest_collection_finish(session):
    state = session.config.stash.get(STATE, None)
    if state is not None:
        state["selected"] = {item.exercise.id for item in session.items if isinstance(item, CheckItem)}


def _repository_run(config, state) -> bool:
    """The repository's own suite checking its reference by default: a points table there is for nobody
    (a student's package, or any package named with --impl, gets one)."""
    package = state["impl"].path.resolve()
    references = {paths.reference_dir(frameworks.adapter(name)).resolve() for name in frameworks.NAMES}
    return config.getoption("--impl") is None and package in references


def _callee_notes(package: Path, graded: list, lang: str) -> list[str]:
    """callees.note for each failing exercise built on other failing ones of the student's (fix softmax first);
    `graded`: (exercise, its result) in the course's order."""
    coded = [ex for ex, _ in graded if isinstance(ex, ExerciseSpec)]
    reached = callees.reached(package, coded)
    by_id = {ex.id: result for ex, result in graded}
    notes = (callees.note(by_id[ex.id], [by_id[i] for i in reached.get(ex.id, ())], lang) for ex in coded)
    return [note for note in notes if note]


def pytest_terminal_summary(terminalreporter, config):
    state = config.stash.get(STATE, None)
    if not state or not (state["results"] or state.get("selected")) or _repository_run(config, state):
        return
    lang, rows, earned, possible, graded = state["lang"], [], 0.0, 0.0, []
    for ex in _course(config).everything:
        checks = state["results"].get(ex.id)
        if isinstance(ex, QuizSpec) and answer_key(ex) is None:
            rows += [_quiz_row(ex, state)] if ex.id in state.get("selected", ()) else []
            continue
        if not checks:
            continue
        result = summarise_quiz(ex, checks, lang) if isinstance(ex, QuizSpec) else summarise(ex, checks, lang)
        graded.append((ex, result))
        passed, total = counted(checks)
        rows.append(_row(ex.id, status_word(result.status, lang), f"{passed}/{total}",
                         f"{result.score:6.2f} / {ex.points:g}"))
        earned, possible = earned + result.score, possible + ex.points
    if not rows:
        return
    left_out = not_applicable_results(_course(config), lang)  # Triton outside torch: shown, out of the total
    rows += [_row(r.id, status_word(r.status, lang), "", "     – / 0") for r in left_out]
    tr = terminalreporter
    tr.section(t("summary_title", lang, impl=state["impl_path"].name))
    for line in _not_implemented_lines(config, lang):
        tr.write_line(line)
    tr.write_line(_row(*(t(key, lang) for key in ("col_exercise", "col_status", "col_checks", "col_points"))))
    for row in rows:
        tr.write_line(row)
    tr.write_line(_row(t("total", lang), "", "", f"{earned:6.2f} / {possible:g}"))
    for line in _callee_notes(state["impl"].path, graded, lang):
        tr.write_line(line)
    for result in left_out:
        tr.write_line(result.feedback)
