"""`attnlab submit`: the student's package (or notebook, `--notebook`) as `<name>-submission.zip`, ready to upload.

<name> is the student's (`--name`, else the local part of user.email in the package's git repository's own
configuration, else the login name), so
zips collected in one folder do not overwrite each other and grade.py names each result after its
student (it drops the `-submission`); every LMS layout grade.py reads keeps it (docs/intake.md). The zip
holds `<package>/…` (regular files only: no __pycache__, compiled files, hidden files or symlinks) and a
root MANIFEST.json (format attnlab-submission/2) with the student's name and the sha256 and size of every
file, keyed by its path in the zip, so staff can tell exactly what was graded. grade.py accepts it as is.
"""

import datetime as dt
import getpass
import hashlib
import json
import os
import subprocess
import zipfile
from dataclasses import dataclass
from pathlib import Path

from attnlab import __version__
from attnlab.core.i18n import Message
from attnlab.core.names import SUBMIT_SUFFIX, slug
from attnlab.core.notebook_source import NotebookError, load, read_code

# The grader's caps on an upload (attnlab/grade/batch/submissions.py, not shipped in the handout).
MAX_ENTRIES = 2000
MAX_TOTAL_BYTES = 50 * 1024 * 1024
SKIPPED_DIRS = {"__pycache__", ".ipynb_checkpoints", ".git", ".pytest_cache", ".hypothesis"}
MANIFEST_FORMAT = "attnlab-submission/2"  # /2 added "student"


class SubmitError(ValueError):
    """The package cannot be zipped for upload; the message (catalogue key "student.<key>") says which file
    or limit; `text(lang)` in the reader's language, str() in English."""

    def __init__(self, key: str, **values):
        self.message = Message(f"student.{key}", values)
        super().__init__(self.message.text("en"))

    def text(self, lang: str) -> str:
        return self.message.text(lang)


@dataclass(frozen=True)
class SubmissionZip:
    path: Path  # the zip written
    files: tuple[str, ...]  # their paths inside the zip ("<package>/softmax.py", ...)
    skipped: tuple[str, ...]  # left out: symlinks and other non-regular files
    notes: tuple = ()  # a notebook's: what grading will not run (notebook_source's Messages)


def package_files(package: Path) -> tuple[list[Path], list[str]]:
    """Regular files to ship (sorted) and the names left out; never follows a symlink."""
    files, skipped = [], []
    for top, dirs, names in os.walk(package, followlinks=False):
        top_path = Path(top)
        for d in list(dirs):
            if d in SKIPPED_DIRS or d.startswith(".") or (top_path / d).is_symlink():
                dirs.remove(d)
                if (top_path / d).is_symlink():
                    skipped.append(str((top_path / d).relative_to(package)))
        for name in names:
            path = top_path / name
            if name.startswith(".") or name.endswith((".pyc", ".pyo")):
                continue
            if path.is_symlink() or not path.is_file():
                skipped.append(str(path.relative_to(package)))
            else:
                files.append(path)
    return sorted(files), sorted(skipped)


def default_name(package: Path) -> tuple[str, str]:
    """(the student's name as a file name, where it came from: "git" or "login"; "" if neither gives one).
    The local part of user.email in the git configuration of the repository holding `package`, else the
    login name. The machine's global git e-mail is never used: on a shared or borrowed machine it is often
    someone else's."""
    try:
        email = subprocess.run(["git", "-C", str(package), "config", "--local", "user.email"], capture_output=True,
                               text=True, timeout=10, check=False).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        email = ""
    if slug(email.partition("@")[0]):
        return slug(email.partition("@")[0]), "git"
    try:
        return slug(getpass.getuser()), "login"
    except (OSError, KeyError):  # no login name in some containers
        return "", "login"


def manifest(package: Path, files: list[Path], student: str) -> dict:
    entries = {}
    for path in files:
        data = path.read_bytes()
        name = f"{package.name}/{path.relative_to(package).as_posix()}"
        entries[name] = {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
    return {"format": MANIFEST_FORMAT, "student": student, "package": package.name, "harness_version": __version__,
            "created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"), "files": entries}


def _check_package(package: Path, files: list[Path]) -> None:
    if not any(p.suffix == ".py" and p.parent == package for p in files):  # __init__.py may be missing, as at grading
        raise SubmitError("submit_no_package", path=str(package))
    if len(files) + 1 > MAX_ENTRIES:
        raise SubmitError("submit_too_many", path=str(package), count=len(files), limit=MAX_ENTRIES - 1)
    total = sum(p.stat().st_size for p in files)
    if total > MAX_TOTAL_BYTES:
        raise SubmitError("submit_too_big", path=str(package), mb=total >> 20, limit=MAX_TOTAL_BYTES >> 20)


def build_notebook_submission(notebook: Path, *, out_dir: Path, student: str,
                              data_files: frozenset[str] = frozenset(),
                              libraries: tuple[str, ...] | None = None) -> SubmissionZip:
    """Write out_dir/<student>-submission.zip holding the notebook as it is and MANIFEST.json, after reading
    it as grade.py will (attnlab.core.notebook_source, with the course's `libraries`): a notebook grading would
    refuse is refused here, and what grading will not run is in the result's notes."""
    notebook = Path(notebook).resolve()
    if not notebook.is_file():
        raise SubmitError("submit_no_notebook", path=str(notebook))
    try:
        code = read_code(load(notebook.read_bytes(), notebook.name), notebook.name, data_files, libraries)
    except NotebookError as problem:
        raise SubmitError("submit_bad_notebook", problem=problem.message) from None
    target = Path(out_dir) / f"{student}{SUBMIT_SUFFIX}.zip"
    data = notebook.read_bytes()
    info = {"format": MANIFEST_FORMAT, "student": student, "notebook": notebook.name, "harness_version": __version__,
            "created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "files": {notebook.name: {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}}}
    tmp = target.with_name(f".{target.name}.tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(notebook.name, data)
        zf.writestr("MANIFEST.json", json.dumps(info, indent=2, ensure_ascii=False) + "\n")
    os.replace(tmp, target)
    return SubmissionZip(path=target, files=(notebook.name,), skipped=(), notes=code.notes)


def build_submission(package: Path, *, out_dir: Path, student: str) -> SubmissionZip:
    """Write out_dir/<student>-submission.zip with MANIFEST.json at its root (`student`: a slug() name)."""
    package = Path(package).resolve()
    files, skipped = package_files(package)
    _check_package(package, files)
    target = Path(out_dir) / f"{student}{SUBMIT_SUFFIX}.zip"
    if target.resolve().is_relative_to(package):
        raise SubmitError("submit_inside", path=str(target))
    info = manifest(package, files, student)
    tmp = target.with_name(f".{target.name}.tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for path, name in zip(files, info["files"]):
            zf.write(path, name)
        zf.writestr("MANIFEST.json", json.dumps(info, indent=2, ensure_ascii=False) + "\n")
    os.replace(tmp, target)
    return SubmissionZip(path=target, files=tuple(info["files"]), skipped=tuple(skipped))
