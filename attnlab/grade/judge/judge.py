"""The judge: grades one submission. It holds the specs and the reference and never imports student code;
the submission's functions run in a RemoteImpl runner, and every comparison happens here.
"""

import datetime as dt
import importlib.util
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from attnlab import __version__
from attnlab.core import callees, paths
from attnlab.core.config import Run
from attnlab.core.forbidden import operator_packets
from attnlab.core.i18n import t
from attnlab.core.internal import internal_exercise
from attnlab.core.outcomes import Outcome
from attnlab.core.quiz import answer_key, grade_quiz, read_answers
from attnlab.core.results import ExerciseResult, SubmissionResult
from attnlab.core.scoring import grade_exercise, load_reference, make_context, not_applicable_results
from attnlab.core.spec import Course, QuizSpec
from attnlab.core.status import Status
from attnlab.grade.batch import notebooks, secret
from attnlab.grade.batch.submissions import BadSubmission, Submission, fingerprint, prepare
from attnlab.grade.judge import compile_cache
from attnlab.grade.judge.compile_cache import CompileCache
from attnlab.grade.judge.remote import RemoteImpl
from attnlab.grade.sandbox import runs
from attnlab.grade.sandbox.levels import Isolation, isolation_level


@dataclass(frozen=True)
class JudgeOptions:
    """Grading's run (its seed is the secret one: fresh inputs for every case), and what only the judge needs."""

    run: Run
    hidden_paths: tuple[Path, ...]  # what runners must not see (hidden_paths_for)
    deadline: float | None = None  # time.monotonic() after which no exercise starts (grade.py --budget)
    compile_cache: CompileCache | None = None  # the framework's compiled operations, read-only (compile_cache.py)
    checks_digest: str | None = None  # what the results are graded with (grade.batch.checks_digest)


def installed_reference() -> list[Path]:
    """Where `import reference` really resolves (a non-editable install copies it into site-packages)."""
    spec = importlib.util.find_spec("reference")
    return [Path(p) for p in (spec.submodule_search_locations or [])] if spec else []


def hidden_paths_for(out_dir: Path, submissions: list[Submission]) -> tuple[Path, ...]:
    """What a runner must not see: solutions, specs, data, results, the course secret and every other
    submission."""
    root = paths.ROOT
    fixed = [paths.REFERENCE_DIR, *installed_reference(), paths.SPEC_DIR, paths.FIXTURES_DIR, root / "tests",
             root / "examples", root / ".git", root / "dist", root / "grading-output", out_dir,
             secret.DEFAULT_FILE.parent, secret.secret_file()]
    return tuple(dict.fromkeys(p.resolve() for p in fixed + [s.source for s in submissions]))


def failed_everywhere(course: Course, status: Status, message: str) -> list[ExerciseResult]:
    return [ExerciseResult(id=ex.id, function=ex.function, score=0.0, max_score=ex.points, status=status,
                           feedback=message) for ex in course.exercises]


def _internal_everywhere(course: Course, exc: Exception, lang: str) -> list[ExerciseResult]:
    """Every exercise of a submission whose grading failed outside any exercise (attnlab.core.internal); the
    first carries the traceback."""
    results = failed_everywhere(course, Status.INTERNAL_ERROR, t("internal_submission", lang, type=type(exc).__name__))
    first = internal_exercise(course.exercises[0], exc, lang)
    return [replace(results[0], checks=first.checks), *results[1:]]


def _quiz(quiz: QuizSpec, package: Path, lang: str) -> ExerciseResult:
    return grade_quiz(quiz, read_answers(package / quiz.answers_file), answer_key(quiz) or {}, lang=lang)


OVERLOAD_RETRIES = 1  # an exercise the machine starved is graded again at once, this many times


def _coded(exercise, remote: RemoteImpl, run: Run, reference) -> ExerciseResult:
    """The exercise's result; graded again when the machine, not the submission, ran out its time."""
    result = _graded_once(exercise, remote, run, reference)
    for _ in range(OVERLOAD_RETRIES):
        if not starved(result):
            break
        result = _graded_once(exercise, remote, run, reference)
    return result


def starved(result: ExerciseResult) -> bool:
    """Whether the machine, not the submission, ran out the exercise's time (in the result or one of its checks)."""
    return result.status == Status.OVERLOADED or any(c.status == Status.OVERLOADED for c in result.checks)


def _graded_once(exercise, remote: RemoteImpl, run: Run, reference) -> ExerciseResult:
    with remote.budget(run.limits.timeout_s):
        ctx = make_context(exercise, remote, lang=run.lang, fresh_seed=run.seed, reference=reference,
                           fixtures_dir=None, device=run.device)
        try:
            result = grade_exercise(ctx)
        except Outcome as outcome:  # e.g. the runner died while a property was mid-way
            result = ExerciseResult(exercise.id, exercise.function, 0.0, exercise.points, outcome.status,
                                    outcome.text(run.lang))
    if result.status in (Status.ERROR, Status.TIMEOUT, Status.MEMORY) and remote.output_tail:
        tail = "\n" + t("grade.tail", run.lang) + "\n" + remote.output_tail
        result = ExerciseResult(**{**result.__dict__, "feedback": result.feedback + tail})
    return result


def banned_operators(run: Run) -> tuple[str, ...]:
    """The ATen operators the course's exercises ban, where its framework enforces them (torch): the forkserver
    wires their tripwires once, before forking, instead of every runner at its first guarded call."""
    return operator_packets(n for e in run.course.exercises for n in getattr(e, "forbidden", ()) if run.adapter.owns(n))


def said_once(results: list[ExerciseResult], lang: str) -> list[ExerciseResult]:
    """A failure several exercises share word for word (code that does not import) is quoted in the first
    and referred to in the others, so feedback does not repeat it once per exercise."""
    first: dict[tuple[str, ...], str] = {}
    out = []
    for result in results:
        messages = tuple(dict.fromkeys(c.message for c in result.checks if not c.passed and c.message))
        if result.status == Status.ERROR and messages and messages in first:
            result = replace(result, feedback=t("same_problem_as", lang, id=first[messages]))
        elif result.status == Status.ERROR and messages:
            first[messages] = result.id
        out.append(result)
    return out


def not_reached(exercise, lang: str) -> ExerciseResult:
    """An exercise the run's time budget (grade.py --budget) ended before: no points, and why."""
    return ExerciseResult(exercise.id, exercise.function, 0.0, exercise.points, Status.TIMEOUT,
                          t("autograder.not_reached", lang))


Progress = Callable[[list[ExerciseResult]], None]  # told each exercise's result as soon as it is known


def exercise_results(package: Path, name: str, opts: JudgeOptions, scratch: Path,
                     progress: Progress | None = None) -> list[ExerciseResult]:
    run = opts.run
    reference = load_reference()
    results = []
    with RemoteImpl(package, name=name, limits=run.limits, adapter=run.adapter, hidden_paths=list(opts.hidden_paths),
                    libraries=run.course.libraries, scratch_root=scratch, compile_cache=opts.compile_cache,
                    tripwires=banned_operators(run)) as remote:
        for exercise in run.course.exercises:
            try:
                if isinstance(exercise, QuizSpec):
                    results.append(_quiz(exercise, package, run.lang))
                elif opts.deadline is not None and time.monotonic() >= opts.deadline:
                    results.append(not_reached(exercise, run.lang))
                else:
                    results.append(_coded(exercise, remote, run, reference))
            except Exception as exc:  # the judge's own fault: this exercise says so, the next is graded
                results.append(internal_exercise(exercise, exc, run.lang))
            if progress is not None:
                progress(results)
    return callees.noted_in(said_once(results, run.lang), package, run.course.coded, run.lang)


def grade_submission(submission: Submission, opts: JudgeOptions, progress: Progress | None = None) -> SubmissionResult:
    course, lang = opts.run.course, opts.run.lang
    started_at = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    started = time.monotonic()
    not_graded = notebook = None
    digest = fingerprint(submission)  # before the copy: what is graded is at most as new as this
    try:  # the judge's own faults, its scratch dir's among them: this submission says so, the class goes on
        # a scratch dir that cannot be removed afterwards is the next run's to sweep, not a lost grade
        with tempfile.TemporaryDirectory(prefix=f"attnlab-{submission.name[:40]}-", ignore_cleanup_errors=True) as work:
            work_dir = Path(work)
            runs.mark(work_dir)  # a later run removes it if this one is killed (runs.sweep)
            # runner uids may enter (to reach their own scratch dir below) but not list it; the upload
            # copy inside is the judge's alone (prepare)
            work_dir.chmod(0o711)
            try:
                package = prepare(submission, work_dir, course.package_markers, opts.run.offered)
                exercises = exercise_results(package, submission.name, opts, work_dir, progress)
            except BadSubmission as problem:
                not_graded = t("upload.failed", lang, name=submission.name, problem=problem.message)
                exercises = failed_everywhere(course, Status.ERROR, not_graded)
            notebook = notebooks.summary(work_dir, lang)
    except Exception as exc:
        exercises = _internal_everywhere(course, exc, lang)
    exercises = [*exercises, *not_applicable_results(course, lang)]  # listed, worth nothing either way
    return SubmissionResult(
        submission=submission.name, score=round(sum(e.score for e in exercises), 4),
        max_score=course.total_points, exercises=tuple(exercises), started_at=started_at,
        duration_s=round(time.monotonic() - started, 3), harness_version=__version__,
        assignment=course.assignment_id, framework=opts.run.framework,
        origin=submission.origin.to_json() if submission.origin else None, not_graded=not_graded,
        notebook=notebook, source_digest=digest, checks_digest=opts.checks_digest)


def with_compile_cache(opts: JudgeOptions, *, fill: bool = True,
                       say: Callable[[str], None] = lambda _: None) -> tuple[JudgeOptions, SubmissionResult | None]:
    """`opts` with the framework's compilation cache for this assignment and seed (compile_cache.py), filled
    first where there is none yet: the reference graded once, in a runner that writes its own cache. `opts`
    unchanged where the framework keeps none, or (fill=False) none is filled yet. opts.run.limits: one worker's
    (its runner uid). Second: the reference's result where it was graded to fill the cache (under those limits,
    compiling everything), else None."""
    run = opts.run
    final = compile_cache.location(run.adapter, run.course.assignment_id, run.seed)
    if final is None or isolation_level(run.limits.isolation) is Isolation.RLIMITS_ONLY:
        return opts, None  # rlimits-only: runners could write it, so they get none (RemoteImpl) and none is filled
    filled = None
    if not compile_cache.complete(final):
        if not fill:
            return opts, None
        say(f"compiling {run.framework}'s operations once from the reference into {final} (read-only to runners)")
        filling = compile_cache.staging(final)
        reference = paths.reference_dir(run.adapter)
        trusted = replace(opts, deadline=None, compile_cache=CompileCache(filling, fill=True))
        try:
            filled = grade_submission(Submission(name="reference", source=reference), trusted)
            compile_cache.seal(filling, final, reference)
        finally:
            shutil.rmtree(filling, ignore_errors=True)  # gone already once sealed
    return replace(opts, compile_cache=CompileCache(final)), filled
