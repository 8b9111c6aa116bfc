"""attnlab: where you stand and what to fix next.

    attnlab status                  # every exercise: passed / failed / not implemented, visible points
    attnlab check softmax           # one exercise, every check, the likely mistake, the hints
    attnlab hint softmax            # what to implement and the hints
    attnlab viz causal_attention    # PNG: your attention weights beside the reference's
    attnlab submit                  # <name>-submission.zip with MANIFEST.json, to upload (--name NAME)
    attnlab submit --notebook attention.en.ipynb   # the notebook instead of the package
    attnlab --lang zh status        # 中文 (default: from the locale, or ATTNLAB_LANG)

The package checked is `--impl PATH` (a notebook, `--impl hw.ipynb`, is read as grade.py reads it), else
$ATTNLAB_IMPL, else `attnlab_impl` under
[tool.pytest.ini_options] of the project's pyproject.toml (the handout sets it to its `attention/`
package), else `attention/` next to harness/ if it exists. Exit status: 0 on success (check: when the
exercise passes), 1 when a check fails or the picture could not be drawn, 2 for a usage error.
"""

import argparse
import os
import re
import shutil
import sys
from pathlib import Path

from attnlab.core import callees, config, paths, shutdown
from attnlab.core.calls import module_file, other_case
from attnlab.core.columns import pad
from attnlab.core.columns import width as text_width
from attnlab.core.config import Run
from attnlab.core.i18n import default_lang, t
from attnlab.core.impl import InProcessImpl, load_package
from attnlab.core.names import slug
from attnlab.core.outcomes import Outcome, SubmissionError
from attnlab.core.quiz import problem_lines, quiz_state
from attnlab.core.scoring import grade_exercise, make_context, not_applicable_results
from attnlab.core.spec import QuizSpec, SpecError
from attnlab.core.status import Status
from attnlab.student import signatures
from attnlab.student.notebook import UnknownExercise, exercise_spec
from attnlab.student.submit import SubmitError, build_notebook_submission, build_submission, default_name
from attnlab.student.text import counted, quiz_word, render_hints, render_result, say, status_word
from attnlab.student.timer import time_limited

DEFAULT_PACKAGE = "attention"
COLUMNS = (18, 9)  # status, checks; the exercise column fits the longest id


class UsageError(Exception):
    """Exit status 2 with this message."""


def ini_package(root: Path) -> str | None:
    """`attnlab_impl` under [tool.pytest.ini_options] in root/pyproject.toml, if set."""
    pyproject = root / "pyproject.toml"
    if not pyproject.is_file():
        return None
    text = pyproject.read_text(encoding="utf-8")
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: the one line we need is simple
        match = re.search(r'^\s*attnlab_impl\s*=\s*"([^"]+)"', text, re.MULTILINE)
        return match.group(1) if match else None
    return tomllib.loads(text).get("tool", {}).get("pytest", {}).get("ini_options", {}).get("attnlab_impl")


def resolve_package(impl: str | None, *, lang: str, run: Run, root: Path = paths.ROOT) -> Path:
    """The package directory under test (see the module docstring for the order); a notebook (`--impl
    hw.ipynb`) is read as grading reads it (notebook_package)."""
    if (notebook := given_notebook(impl)) is not None:
        return notebook_package(notebook, run)
    if given := _given(impl):
        path = Path(given).expanduser().resolve()
    elif (configured := ini_package(root)) is not None:
        path = (root / configured).resolve()
    elif (root / DEFAULT_PACKAGE / "__init__.py").is_file():
        path = root / DEFAULT_PACKAGE
    else:
        raise UsageError(say("no_package", lang, root=root))
    markers = run.course.package_markers
    # modules without __init__.py are a package too, as grade.py takes them (uploads of files one by one)
    if not (path / "__init__.py").is_file() and not any((path / name).is_file() for name in markers):
        raise UsageError(say("not_a_package", lang, path=path, files=", ".join(sorted(markers))))
    return path


def _given(impl: str | None) -> str | None:
    """What `--impl`, else ATTNLAB_IMPL, names."""
    return impl or os.environ.get("ATTNLAB_IMPL")


def given_notebook(impl: str | None) -> Path | None:
    """The notebook `--impl` (or ATTNLAB_IMPL) names, if it names one."""
    given = _given(impl)
    return Path(given).expanduser().resolve() if given and given.lower().endswith(".ipynb") else None


def notebook_package(notebook: Path, run: Run) -> Path:
    """The package grading makes of `notebook` (attnlab.core.notebook_source: code cells in order, what it
    does not run dropped), in a temporary folder removed at exit; what is dropped is said first, so a
    notebook is checked here as grade.py will run it: top to bottom, in a fresh process."""
    import atexit
    import tempfile

    from attnlab.core.notebook_source import NotebookError, as_package

    if not notebook.is_file():
        raise UsageError(t("student.submit_no_notebook", run.lang, path=notebook))
    folder = Path(tempfile.mkdtemp(prefix="attnlab-notebook-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    try:
        code = as_package(notebook, folder / "notebook", run.course.answers_files, run.offered)
    except NotebookError as problem:
        raise UsageError(t("student.submit_bad_notebook", run.lang, problem=problem.message)) from None
    print(t("student.notebook_read", run.lang, file=notebook.name, count=len(code.cells)))
    for note in code.notes:
        print(f"  {note.text(run.lang)}")
    return folder / "notebook"


def _row(width: int, name: str, status: str, checks: str, points: str) -> str:
    return pad(name, width) + pad(status, COLUMNS[0]) + pad(checks, COLUMNS[1]) + points


def _quiz_row(width: int, quiz: QuizSpec, package: Path, lang: str) -> tuple[str, list[str]]:
    """The quiz's row (answered / format problem, well-formed answers) and its format problems."""
    state = quiz_state(quiz, package)
    row = _row(width, quiz.id, quiz_word(state, lang), f"{state.answered}/{len(quiz.questions)}",
               f"  – / {quiz.points:g}  ({say('quiz_later', lang)})")
    return row, problem_lines(quiz, state, lang)


def implementation(package: Path, run: Run) -> InProcessImpl:
    return InProcessImpl(package, name=package.name, libraries=run.course.libraries, adapter=run.adapter)


def checked(exercise, impl: InProcessImpl, run: Run):
    """The exercise's visible checks of `impl`, under the exercise's time limit."""
    return grade_exercise(make_context(exercise, time_limited(impl, exercise.id, run.limits), lang=run.lang,
                                       device=run.device), visible_only=True)


def callee_note(exercise, result, package: Path, impl: InProcessImpl, run: Run) -> str | None:
    """For a failing `result`: the line naming the student's own exercise functions it calls that fail their
    visible checks too (callees.py), which are checked for it; None where there are none."""
    reached = callees.reached(package, run.course.coded).get(exercise.id, ())
    return callees.note(result, [checked(run.course.get(i), impl, run) for i in reached], run.lang)


def cmd_status(opts, run: Run) -> int:
    lang, course = run.lang, run.course
    package = resolve_package(opts.impl, lang=lang, run=run)
    notebook = given_notebook(opts.impl)
    width = max([len(e.id) for e in (*course.exercises, *course.not_applicable)] + [text_width(say("total", lang))]) + 2
    impl = implementation(package, run)
    print(say("status_title", lang, package=notebook or package))
    try:
        load_package(package, run.offered)
    except SubmissionError as problem:
        print(say("import_failed", lang, problem=problem.text(lang)))
    columns = ("col_exercise", "col_status", "col_checks", "col_points")
    print(_row(width, *(t(column, lang) for column in columns)))
    earned, possible, unfinished, quiz_problems = 0.0, 0.0, None, []
    for exercise in course.exercises:
        if isinstance(exercise, QuizSpec):
            row, quiz_problems = _quiz_row(width, exercise, package, lang)
            print(row)
            continue
        result = checked(exercise, impl, run)
        passed, total = counted(result.checks)
        print(_row(width, exercise.id, status_word(result.status, lang), f"{passed}/{total}",
                   f"{result.score:6.2f} / {exercise.points:g}"), flush=True)
        earned, possible = earned + result.score, possible + exercise.points
        unfinished = unfinished or (exercise if result.status != Status.PASSED else None)
    left_out = not_applicable_results(course, lang)  # Triton outside torch: shown, out of the total
    for result in left_out:
        print(_row(width, result.id, status_word(result.status, lang), "", "     – / 0"))
    print(_row(width, say("total", lang), "", "", f"{earned:6.2f} / {possible:g}"))
    for result in left_out:
        print(result.feedback)
    if quiz_problems:
        print("\n".join(["", t("student.quiz_problems", lang), *(f"  {line}" for line in quiz_problems)]))
    print()
    print(say("next", lang, id=unfinished.id, title=unfinished.title.get(lang)) if unfinished
          else say("all_done_notebook", lang, file=notebook.name) if notebook
          else say("all_done", lang))
    print(say("hidden_note", lang))
    return 0


def cmd_check(opts, run: Run) -> int:
    exercise = exercise_spec(opts.exercise, run.lang, run.course)
    package = resolve_package(opts.impl, lang=run.lang, run=run)
    impl = implementation(package, run)
    result = checked(exercise, impl, run)
    first = callee_note(exercise, result, package, impl, run) if result.status != Status.PASSED else None
    print(render_result(exercise, result, run.lang, note=first))
    return 0 if result.status == Status.PASSED else 1


def cmd_hint(opts, run: Run) -> int:
    print(render_hints(exercise_spec(opts.exercise, run.lang, run.course), run.lang))
    return 0


def cmd_viz(opts, run: Run) -> int:
    from attnlab.student import viz

    lang, course = run.lang, run.course
    exercise = exercise_spec(opts.exercise, lang, course)
    if viz.picture_of(exercise) is None:
        supported = ", ".join(viz.drawable(course))
        raise UsageError(say("viz_unsupported", lang, id=exercise.id, supported=supported))
    package = resolve_package(opts.impl, lang=lang, run=run)
    out = Path(opts.output or f"{exercise.id}-attention.png")
    problem = viz.draw(exercise, time_limited(implementation(package, run), exercise.id, run.limits), out, lang=lang)
    if problem:
        print(say("viz_yours_failed", lang, problem=problem))
    print(say("viz_written", lang, path=out))
    return 1 if problem else 0


def cmd_submit(opts, run: Run) -> int:
    lang = run.lang
    if opts.notebook:  # the notebook alone: grade.py reads its code cells
        notebook = Path(opts.notebook)
        student, source = (slug(opts.name), "option") if opts.name is not None else default_name(notebook.parent)
        if not student:
            raise UsageError(t("intake.bad_name", lang, name=opts.name or ""))
        print(t("intake.submit_name", lang, name=student, source=t(f"student.name_from_{source}", lang)))
        made = build_notebook_submission(notebook, out_dir=Path(opts.output or "."), student=student,
                                         data_files=run.course.answers_files, libraries=run.offered)
        for note in made.notes:  # what grading will not run: seen before handing in, not after
            print(note.text(lang))
        print(t("student.submit_notebook_written", lang, path=made.path, notebook=made.files[0]))
        return 0
    package = resolve_package(opts.impl, lang=lang, run=run)
    student, source = (slug(opts.name), "option") if opts.name is not None else default_name(package)
    if not student:
        raise UsageError(t("intake.bad_name", lang, name=opts.name or ""))
    print(t("intake.submit_name", lang, name=student, source=t(f"student.name_from_{source}", lang)))
    made = build_submission(package, out_dir=Path(opts.output or "."), student=student)
    for warning in quiz_warnings(package, run):
        print(warning)
    modules: dict[str, list[str]] = {}  # module -> the exercises it holds
    for exercise in run.course.coded:
        modules.setdefault(exercise.module, []).append(exercise.id)
    for module, exercises in modules.items():
        if (found := other_case(package, module)) is not None:
            print(t("student.submit_module_case", lang, expected=module_file(module).as_posix(), found=found,
                    exercises=", ".join(exercises)))
    for exercise, theirs, stub in signatures.renamed(package, paths.template_dir(run.adapter), run.course.coded):
        print(t("student.submit_renamed", lang, function=exercise.function, theirs=theirs, stub=stub,
                module=exercise.module, exercise=exercise.id))
    if made.skipped:
        print(say("submit_skipped", lang, names=", ".join(made.skipped)))
    print(say("submit_written", lang, path=made.path, count=len(made.files), package=package.name))
    return 0


def quiz_warnings(package: Path, run: Run) -> list[str]:
    """What `attnlab submit` warns about the quiz: unanswered questions, answers that would score nothing."""
    lang = run.lang
    quiz = next((e for e in run.course.exercises if isinstance(e, QuizSpec)), None)
    if quiz is None:
        return []
    state = quiz_state(quiz, package)
    warnings = [t("student.submit_malformed", lang, problem=line) for line in problem_lines(quiz, state, lang)]
    if state.unanswered and state.file_problem is None:
        warnings.append(t("student.submit_unanswered", lang, file=quiz.answers_file, count=len(state.unanswered),
                          total=len(quiz.questions), ids=", ".join(state.unanswered)))
    return warnings


def parser() -> argparse.ArgumentParser:
    # options valid before or after the command; SUPPRESS keeps a subcommand from resetting them
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--impl", default=argparse.SUPPRESS,
                        help="your package directory, or your notebook (.ipynb) read as grading reads it")
    config.add_arguments(common, suppress=True)  # --assignment, --framework, --device, --lang
    top = argparse.ArgumentParser(prog="attnlab", parents=[common], description=__doc__.split("\n")[0],
                                  epilog=__doc__.split("\n\n", 1)[1],
                                  formatter_class=argparse.RawTextHelpFormatter)
    commands = top.add_subparsers(dest="command", required=True)
    commands.add_parser("status", parents=[common], help="a table of every exercise (visible checks)")
    for name, helptext in (("check", "one exercise in detail"), ("hint", "what to implement, and hints")):
        commands.add_parser(name, parents=[common], help=helptext).add_argument("exercise")
    viz = commands.add_parser("viz", parents=[common], help="your attention weights beside the reference's")
    viz.add_argument("exercise")
    viz.add_argument("-o", "--output", help="PNG path (default: ./EXERCISE-attention.png)")
    submit = commands.add_parser("submit", parents=[common], help="zip your package for upload")
    submit.add_argument("-o", "--output", help="directory for the zip (default: the current directory)")
    submit.add_argument("--notebook", help="hand in this notebook (.ipynb) instead of your package")
    submit.add_argument("--name", help="your name in the zip's name and MANIFEST.json (default: from user.email "
                        "in your repository's own git config, else your login name)")
    return top


COMMANDS = {"status": cmd_status, "check": cmd_check, "hint": cmd_hint, "viz": cmd_viz, "submit": cmd_submit}


def main(argv: list[str] | None = None) -> int:
    shutdown.freeze_at_exit()  # no final collections over torch's objects: a student waits for the exit too
    opts = parser().parse_args(argv)
    opts.impl = getattr(opts, "impl", None)
    lang = getattr(opts, "lang", None) or default_lang()
    try:
        run = config.resolve(**{**{name: getattr(opts, name, None) for name in config.RUN_OPTIONS}, "lang": lang})
        return COMMANDS[opts.command](opts, run)
    except Outcome as exc:
        print(f"attnlab {opts.command}: {exc.text(lang)}", file=sys.stderr)
        return 2
    except SubmitError as exc:
        print(f"attnlab {opts.command}: {exc.text(lang)}", file=sys.stderr)
        return 2
    except (UsageError, UnknownExercise, SpecError, ValueError) as exc:
        print(f"attnlab {opts.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C, also inside the student's code: a line, not a traceback
        print(t("student.interrupted", lang, command=opts.command), file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `attnlab check softmax | head`: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
