"""Instructor releases: the student handout and the Gradescope autograder.

    python -m attnlab.instructor.release handout [--assignment ID]     # dist/ID/handout/: what students get
    python -m attnlab.instructor.release autograder [--assignment ID]  # dist/ID/autograder.zip: for Gradescope
    python -m attnlab.instructor.release all [--assignment ID] [--out dist]

One assignment of spec/course.yaml per release (default: the first); its spec/course.yaml lists only it.

The handout holds the student package (`attention/`, from student_template/), a pristine copy of the
stubs (student_template/, where the checks read expected shapes), the harness without grading and
mutation tools, tests/test_exercises.py, specs without hidden cases or hidden properties, the fixtures
of visible cases only, the reference's pictures for `attnlab viz` (fixtures/_viz/), a pyproject with
the `attnlab` command and a README in English and Chinese. No reference/, no hidden data.

The autograder zip holds setup.sh and run_autograder at its root, and the full grader: grade.py,
harness/, reference/ and spec/ (hidden cases included: grading draws hidden inputs from the course secret,
which the zip carries), and
student_template/ for the self-test setup.sh runs (self_test.py). ATTNLAB_TORCH_INDEX, when set while the zip
is made, becomes the index setup.sh installs torch from (see setup.sh.j2).
"""

import argparse
import os
import re
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

import yaml
from jinja2 import Environment, FileSystemLoader, StrictUndefined

from attnlab import __version__
from attnlab.core import config, frameworks, paths
from attnlab.core.config import Limits
from attnlab.core.frameworks.base import Adapter
from attnlab.core.spec import Course, QuizSpec, SpecError
from attnlab.core.spec_load import assignment_framework, load_course
from attnlab.grade.batch import secret
from attnlab.instructor.packaging import (
    GRADER_DEPS,
    HANDOUT_DEPS,
    PACKAGE,
    TORCH_PIN,
    ReleaseError,
    framework_requirements,
    requirements,
)

RELEASE_FILES = Path(__file__).resolve().parent / "release_files"
SECRET_IN_RELEASE = secret.DEFAULT_FILE.relative_to(paths.ROOT).as_posix()  # where grade.py looks for it
HANDOUT_PACKAGES = ("core", "student")  # of attnlab/: what students run, and nothing else
GRADER_PACKAGES = ("core", "student", "grade")
SPEC_HEADER = "# Made by `python -m attnlab.instructor.release handout`: visible cases and properties only.\n"
EXECUTABLE = 0o100755 << 16
REGULAR = 0o100644 << 16
PRIVATE = 0o100600 << 16  # the course secret: the judge's (root's) alone, even before grade.py hides it


def _templates() -> Environment:
    # plain text (Markdown, TOML, shell), not HTML: nothing to escape
    return Environment(loader=FileSystemLoader(RELEASE_FILES), autoescape=False, keep_trailing_newline=True,
                       undefined=StrictUndefined)


def _ignore(*names: str):
    return shutil.ignore_patterns("__pycache__", "*.pyc", *names)


def handout_spec(path: Path) -> str:
    """spec/<id>.yaml without hidden cases and properties (comments and anchors are not kept)."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["cases"] = [case for case in data["cases"] if case.get("visible") is True]
    if "properties" in data:
        data["properties"] = [p for p in data["properties"] if p.get("visible") is True]
    return SPEC_HEADER + yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=110,
                                        default_flow_style=None)


def course_yaml(course: Course) -> str:
    """spec/course.yaml of a release: the course with only the assignment released (so it is the default)."""
    data = yaml.safe_load((paths.SPEC_DIR / "course.yaml").read_text(encoding="utf-8"))
    data["assignments"] = [_released(a, course) for a in data["assignments"] if a["id"] == course.assignment.id]
    return (f"# Made by `python -m attnlab.instructor.release`: assignment {course.assignment.id} only.\n"
            + yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=110))


def _released(assignment: dict, course: Course) -> dict:
    """The assignment's course.yaml entry in the release's framework: without the exercises not applicable
    there (Triton outside torch), their points and the libraries only they need."""
    released = {**assignment, "framework": course.framework}
    if course.not_applicable:
        released["exercises"] = [e.id for e in course.exercises]
        released["total_points"] = course.total_points
        released["libraries"] = [n for n in assignment.get("libraries", []) if n in course.libraries]
    return released


def copy_spec(course: Course, target: Path, *, visible_only: bool = True) -> None:
    """The assignment's specs (and their exercises' .py); for a handout without hidden cases and laws."""
    target.mkdir(parents=True)
    (target / "course.yaml").write_text(course_yaml(course), encoding="utf-8")
    shutil.copytree(paths.SPEC_DIR / "schema", target / "schema")  # what the specs' editor modelines name
    for exercise in course.exercises:
        source = paths.SPEC_DIR / f"{exercise.id}.yaml"
        if isinstance(exercise, QuizSpec) or not visible_only:
            shutil.copy2(source, target / source.name)  # a quiz's questions only: the answers are in reference/
        else:
            (target / source.name).write_text(handout_spec(source), encoding="utf-8")
        code = source.with_suffix(".py")  # the exercise's laws and picture: every law is visible anyway
        if code.is_file():
            shutil.copy2(code, target / code.name)
    shipped = load_course(target)
    if visible_only:
        _same_visible_checks(course, shipped)


def package_files(course: Course) -> list[str]:
    """The template files of the assignment's package: __init__.py, its exercises' modules (in its
    framework), its quiz file."""
    return sorted(template_sources(course))


def template_sources(course: Course) -> dict[str, Path]:
    """name -> generated file of each template file of the assignment's package; the quiz's answers file is
    the same in every framework (student_template/)."""
    stubs = paths.template_dir(frameworks.adapter(course.framework))
    found = {name: stubs / name for name in ("__init__.py", *(f"{e.module}.py" for e in course.coded))}
    found.update({e.answers_file: paths.TEMPLATE_DIR / e.answers_file
                  for e in course.exercises if isinstance(e, QuizSpec)})
    return {name: path for name, path in found.items() if path.is_file()}


def copy_package_template(course: Course, target: Path) -> None:
    target.mkdir(parents=True)
    sources = template_sources(course)
    missing = [f"{e.module}.py" for e in course.coded if f"{e.module}.py" not in sources]
    if missing:
        stubs = paths.template_dir(frameworks.adapter(course.framework))
        raise ReleaseError(f"{stubs} lacks {', '.join(sorted(set(missing)))}: "
                           f"write reference/{course.framework}/ and run `python -m attnlab.instructor.generate "
                           "template`")
    for name, source in sources.items():
        shutil.copy2(source, target / name)


def _same_visible_checks(course: Course, shipped: Course) -> None:
    """The handout's specs load and define exactly the visible checks of the originals."""
    for original, copy in zip(course.coded, shipped.coded):
        if (tuple(c for c in original.cases if c.visible) != copy.cases
                or tuple(p for p in original.properties if p.visible) != copy.properties):
            raise ReleaseError(f"spec/{original.id}.yaml: the handout copy changed a visible case or "
                               "property")


def copy_fixtures(course: Course, target: Path) -> None:
    """Each visible case's .npz, whole (inputs, expected output, misconception outputs)."""
    for exercise in course.coded:
        for case in exercise.cases:
            if not case.visible:
                continue
            source = paths.FIXTURES_DIR / exercise.id / f"{case.name}.npz"
            if not source.is_file():
                raise ReleaseError(f"{source} is missing: run `python -m attnlab.instructor.generate fixtures`")
            (target / exercise.id).mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / exercise.id / source.name)


def copy_viz(course: Course, target: Path) -> None:
    """The reference's pictures of the assignment's exercises (fixtures/_viz/<id>.npz)."""
    from attnlab.student import viz

    drift = viz.sync_viz(course, _reference(), check=True)
    if drift:
        raise ReleaseError(f"{', '.join(drift)} out of date: run `python -m attnlab.instructor.generate viz`")
    target.mkdir(parents=True, exist_ok=True)
    for exercise in course.coded:
        picture = viz.VIZ_DIR / f"{exercise.id}.npz"
        if picture.is_file():
            shutil.copy2(picture, target / picture.name)


def copy_laws(course: Course, target: Path) -> None:
    """The laws' stored hypothesis draws (public inputs of public laws): the student's pytest replays them
    instead of importing hypothesis and drawing."""
    from attnlab.core.laws import LAWS_FILE
    from attnlab.instructor.generate import sync_laws

    if sync_laws(course, check=True):
        raise ReleaseError(f"{LAWS_FILE} is out of date: run `python -m attnlab.instructor.generate laws`")
    shutil.copy2(LAWS_FILE, target / LAWS_FILE.name)


def copy_notebooks(course: Course, target: Path) -> None:
    """The assignment's notebook in the release's framework, in each language, as <assignment>.<lang>.ipynb."""
    from attnlab.instructor import notebooks

    drift = notebooks.sync_notebooks(check=True, only=(course.assignment.id, course.framework))
    own = assignment_framework(paths.SPEC_DIR, course.assignment.id)
    for lang in notebooks.LANGS:
        source = notebooks.NOTEBOOK_DIR / notebooks.notebook_name(course.assignment.id, course.framework, own, lang)
        if f"notebooks/{source.name}" in drift or not source.is_file():
            raise ReleaseError(f"{source} is out of date: run `python -m attnlab.instructor.generate notebooks`")
        shutil.copy2(source, target / f"{course.assignment.id}.{lang}.ipynb")


def copy_package(target: Path, packages: tuple[str, ...]) -> None:
    """attnlab/__init__.py and the named subpackages of attnlab/ (an allow-list: nothing else is copied)."""
    source = paths.ROOT / "attnlab"
    target.mkdir(parents=True)
    shutil.copy2(source / "__init__.py", target / "__init__.py")
    for package in packages:
        shutil.copytree(source / package, target / package, ignore=_ignore())


def _reference():
    from attnlab.core.scoring import load_reference

    reference = load_reference()
    if reference is None:
        raise ReleaseError("reference/ is not importable: releases are made from the full repository")
    return reference


def _check_template(course: Course) -> None:
    from attnlab.instructor.generate import sync_template

    drift = sync_template(course, check=True)
    if drift:
        raise ReleaseError(f"{', '.join(drift)} out of date: run `python -m attnlab.instructor.generate template`")


def _fresh(path: Path) -> Path:
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    return path


def release_dir(out: Path, course: Course, framework: str | None) -> Path:
    """out/<assignment>/, or out/<assignment>-<framework>/ for a framework other than the assignment's own."""
    own = assignment_framework(paths.SPEC_DIR, course.assignment.id)
    name = course.assignment.id if framework in (None, own) else f"{course.assignment.id}-{framework}"
    return Path(out) / name


def build_handout(*, out: Path, assignment: str | None = None, framework: str | None = None) -> Path:
    """Write out/<assignment>/handout/ from scratch (default: the course's first assignment, in its own
    framework); return it."""
    course = load_course(paths.SPEC_DIR, assignment, framework)
    adapter = frameworks.adapter(course.framework)  # need not be installed here: nothing of it runs
    _check_template(course)
    handout = _fresh(release_dir(out, course, framework) / "handout")
    for name in (PACKAGE, "student_template"):  # the working copy and the pristine stubs
        copy_package_template(course, handout / name)
    copy_package(handout / "attnlab", HANDOUT_PACKAGES)
    copy_spec(course, handout / "spec")
    copy_fixtures(course, handout / "fixtures")
    copy_viz(course, handout / "fixtures" / "_viz")
    copy_laws(course, handout / "fixtures")
    values = {"course": course, "package": PACKAGE, "version": __version__, "torch_pin": TORCH_PIN,
              "requirements": requirements(HANDOUT_DEPS + course.libraries) + framework_requirements(adapter),
              "framework": adapter.name, "array_type": adapter.array_type, "module_class": adapter.module_class,
              "default_framework": adapter.subfolder == "",
              "generator_kind": adapter.generator_kind, "imports": adapter.imports,
              "lacks": sorted(str(d).removeprefix("torch.") for d in adapter.unsupported),
              "coded_points": f"{sum(e.points for e in course.coded):g}",  # as `attnlab status` prints it
              "time_limit": f"{Limits.for_adapter(adapter).timeout_s:g}"}
    env = _templates()
    for template, name in (("README.md.j2", "README.md"), ("pyproject.toml.j2", "pyproject.toml")):
        text = env.get_template(f"handout/{template}").render(**values)
        (handout / name).write_text(text, encoding="utf-8")
    shutil.copy2(RELEASE_FILES / "handout" / "gitignore", handout / ".gitignore")
    copy_notebooks(course, handout)
    return handout


def _stage_autograder(stage: Path, course: Course, adapter: Adapter) -> None:
    shutil.copy2(paths.ROOT / "grade.py", stage / "grade.py")
    copy_package(stage / "attnlab", GRADER_PACKAGES)
    shutil.copytree(paths.REFERENCE_DIR, stage / "reference", ignore=_ignore())
    copy_spec(course, stage / "spec", visible_only=False)  # hidden cases too: grading needs them
    paths.copy_template(stage / "student_template", adapter)  # graded by self_test.py
    # the hidden inputs: the course secret (made here if there is none), so Gradescope grades every upload of
    # the same code alike, and as grade.py does here
    value, _ = secret.ensure(secret.secret_file())
    (stage / SECRET_IN_RELEASE).parent.mkdir(mode=0o700)
    (stage / SECRET_IN_RELEASE).write_text(value.hex() + "\n", encoding="ascii")
    files = RELEASE_FILES / "autograder"
    for name in ("run_autograder", "finish_results.py", "self_test.py"):
        shutil.copy2(files / name, stage / name)
    setup = _templates().get_template("autograder/setup.sh.j2").render(torch_pin=TORCH_PIN, torch_index=torch_index())
    (stage / "setup.sh").write_text(setup, encoding="utf-8")
    # student code may import the course's libraries: installed in the image
    wanted = requirements(GRADER_DEPS + course.libraries) + framework_requirements(adapter)
    (stage / "requirements.txt").write_text("\n".join(wanted) + "\n", encoding="utf-8")


def torch_index() -> str:
    """ATTNLAB_TORCH_INDEX (the index setup.sh installs torch from by default), checked to be a plain URL,
    since setup.sh quotes it in shell."""
    value = os.environ.get("ATTNLAB_TORCH_INDEX", "")
    if not re.fullmatch(r"[A-Za-z0-9:/._~%+@=?&-]*", value):
        raise ReleaseError(f"ATTNLAB_TORCH_INDEX={value!r} is not a plain URL (letters, digits and :/._~%+@=?&- only)")
    return value


def _zip_tree(stage: Path, target: Path) -> None:
    executables = {"setup.sh", "run_autograder", "grade.py"}
    private = {SECRET_IN_RELEASE}
    tmp = target.with_name(f".{target.name}.tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(p for p in stage.rglob("*") if p.is_file()):
            rel = path.relative_to(stage).as_posix()
            info = zipfile.ZipInfo(rel, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = EXECUTABLE if rel in executables else PRIVATE if rel in private else REGULAR
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, path.read_bytes())
    tmp.replace(target)


def build_autograder(*, out: Path, assignment: str | None = None, framework: str | None = None) -> Path:
    """Write out/<assignment>/autograder.zip (default: the first assignment); return its path."""
    course = load_course(paths.SPEC_DIR, assignment, framework)  # a broken spec fails here, not on Gradescope
    _reference()
    target = release_dir(out, course, framework) / "autograder.zip"
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="attnlab-autograder-") as work:
        _stage_autograder(Path(work), course, frameworks.adapter(course.framework))
        _zip_tree(Path(work), target)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m attnlab.instructor.release", description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=["handout", "autograder", "all"])
    parser.add_argument("--out", type=Path, default=paths.ROOT / "dist",
                        help="output directory (default: dist/); releases go to OUT/<assignment>/")
    config.add_arguments(parser, ("assignment", "framework"))
    opts = parser.parse_args(argv)
    chosen = {"out": opts.out, "assignment": opts.assignment, "framework": opts.framework}
    try:
        if opts.what in ("handout", "all"):
            print(f"handout: {build_handout(**chosen)}")
        if opts.what in ("autograder", "all"):
            print(f"autograder: {build_autograder(**chosen)}")
    except (ReleaseError, OSError, SpecError) as exc:
        print(f"python -m attnlab.instructor.release: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
