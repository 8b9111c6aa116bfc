"""The Python sources of a directory of submissions, read as grade.py takes them in (its intake: package
directories, .zip files, an LMS export; attnlab.grade.batch.intake) with the same checks on the upload,
never imported. A submission that is a plain directory is read where it is, after the checks grade.py makes
while copying it (unpack.taken_files: symlinks, escaping names, too many files or bytes refuse it); only
an archive, a notebook or part of an LMS export is unpacked into a private directory first.
"""

import os
import tempfile
import zipfile
from pathlib import Path

from attnlab.core.i18n import Message
from attnlab.core.spec import Course
from attnlab.grade.batch.intake import discover
from attnlab.grade.batch.submissions import BadSubmission, IntakeError, Submission, locate, prepare
from attnlab.grade.batch.unpack import is_archive, taken_files

MAX_SOURCE_BYTES = 1 << 20  # a larger .py file is not a hand-written solution: left out


def _python_files(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8", errors="replace")
            for p in sorted(root.rglob("*.py")) if p.is_file() and p.stat().st_size <= MAX_SOURCE_BYTES}


def _read(path: Path) -> str:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)  # checked as a regular file: a link since then is refused
    with open(fd, encoding="utf-8", errors="replace") as file:  # universal newlines, as Path.read_text
        return file.read()


def _in_place(submission: Submission, markers: frozenset[str]) -> dict[str, str] | None:
    """What _python_files would read from prepare's copy of a plain directory, read without copying it;
    None when the package is in an archive or notebook inside it (prepare unpacks those)."""
    source = submission.source
    if submission.members or source.is_symlink() or not source.is_dir():
        return None
    taken = taken_files(source)
    found = locate(source, markers, [where.as_posix() for where, _, _ in taken])
    if not isinstance(found, Path):
        return None
    inside = found.relative_to(source).parts
    python = sorted((where.parts[len(inside):], path) for where, path, size in taken
                    if where.parts[:len(inside)] == inside and where.name.endswith(".py") and size <= MAX_SOURCE_BYTES)
    return {"/".join(parts): _read(path) for parts, path in python}


def is_class_file(path: Path) -> bool:
    """Whether `path` is a file read_sources reads as submissions too: a zip or tar archive (an LMS download)."""
    return path.is_file() and is_archive(path.name)


def read_sources(directory: Path, course: Course) -> tuple[dict[str, dict[str, str]], dict[str, Message]]:
    """Submission name (as in grade.py's results) -> {path in the package: text}, and name -> why it could
    not be read."""
    markers = course.package_markers
    found: dict[str, dict[str, str]] = {}
    skipped: dict[str, Message] = {}
    try:
        submissions = discover([Path(directory)], markers=markers)
        whole = len(submissions) == 1 and submissions[0].source == Path(directory).resolve()
        if whole and Path(directory).is_dir() and not (Path(directory) / "__init__.py").is_file():
            # one submission by intake's rules (packages beside zips): graded as `grade.py DIR/*`, entry by entry
            entries = sorted(p for p in Path(directory).iterdir() if not p.name.startswith("."))
            submissions = discover(entries, markers=markers) if len(entries) > 1 else submissions
    except IntakeError as problem:
        return found, {Path(directory).name: problem.message}
    for submission in submissions:
        try:
            files = _in_place(submission, markers)
            if files is None:
                with tempfile.TemporaryDirectory(prefix="attnlab-similarity-") as work:
                    files = _python_files(prepare(submission, Path(work), markers))
            found[submission.name] = files
        except BadSubmission as problem:
            skipped[submission.name] = problem.message
    return found, skipped


def read_known(directory: Path) -> dict[str, str]:
    """Known sources (public repositories, last year's solutions): every .py file under `directory`, and
    every .py member of a .zip there, by its path below `directory` (a zip's members after `NAME.zip/`).
    Never imported; a file over MAX_SOURCE_BYTES is left out."""
    found = {}
    for path in sorted(Path(directory).rglob("*")):
        name = path.relative_to(directory).as_posix()
        if path.suffix == ".py" and path.is_file() and path.stat().st_size <= MAX_SOURCE_BYTES:
            found[name] = path.read_text(encoding="utf-8", errors="replace")
        elif path.suffix == ".zip" and path.is_file():
            try:
                with zipfile.ZipFile(path) as archive:
                    for member in archive.infolist():
                        if member.filename.endswith(".py") and member.file_size <= MAX_SOURCE_BYTES:
                            found[f"{name}/{member.filename}"] = archive.read(member).decode("utf-8", "replace")
            except (zipfile.BadZipFile, OSError):
                continue  # an unreadable archive among known sources: nothing in it to compare with
    return found
