"""One submission: where its files are, who handed it in, and its package, found in a private copy.

A Submission is a directory, a .zip or tar archive, a notebook, or part of an LMS export (intake.py decides
which). `prepare` copies it (unpack.py: every safety check made while copying) and finds the one directory
holding the exercise modules, at any depth: `student/attention/...` inside a zip is found as well as
`attention/...`. No such directory, or two, is a per-submission message naming what was found; a zip (or tar)
inside the upload (an LMS that keeps the student's zip as a file) is unpacked once when the upload holds no
package itself, and a notebook (.ipynb) is made into the package its code cells are (notebooks.py).
"""

import functools
import hashlib
import zipfile
from dataclasses import asdict, dataclass
from enum import Enum
from pathlib import Path

from attnlab.core import paths
from attnlab.core.i18n import Message, default_lang
from attnlab.grade.batch import notebooks
from attnlab.grade.batch.unpack import (
    MAX_ENTRIES,
    MAX_TOTAL_BYTES,
    BadSubmission,
    Members,
    class_zip,
    copy_tree,
    extract_archive,
    extract_tar,
    extract_zip,
    is_tar,
    not_unpacked,
    taken_files,
    walk_files,
)

__all__ = ["MAX_ENTRIES", "MAX_TOTAL_BYTES", "BadSubmission", "IntakeError", "Layout", "Origin", "Submission",
           "Submitter", "fingerprint", "prepare"]
MAX_SHOWN = 6  # paths named in a message


class IntakeError(ValueError):
    """A command-line path that cannot be read as submissions: a usage error (grade.py exits 2)."""

    def __init__(self, key: str, /, **values):
        self.message = Message(key, values)
        super().__init__(key)

    def __str__(self) -> str:
        return self.message.text(default_lang())


class Layout(str, Enum):
    """How a command-line path holds submissions."""

    SINGLE = "single"  # the path is one submission
    FOLDERS = "folders"  # a folder (or zip) per student, named after the student
    GRADESCOPE = "gradescope"  # Gradescope's "Export Submissions": submission_metadata.yml + submission_<id>/
    CANVAS = "canvas"  # Canvas's "Download Submissions": <lastfirst>[_LATE]_<user id>_<file id>_<file name>
    MOODLE = "moodle"  # Moodle's "Download all submissions": <Full name>_<participant id>_assignsubmission_<plugin>_
    BRIGHTSPACE = "brightspace"  # D2L Brightspace's download: <submission id>-<user id> - <name> - <when>/...
    BLACKBOARD = "blackboard"  # Blackboard Learn's "Assignment File Download": <assignment>_<username>_attempt_...

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Submitter:
    """A person behind a submission, as far as the LMS export says ("" where it says nothing)."""

    name: str = ""  # as the export writes it (names.display_name), never the file-safe name
    email: str = ""
    sid: str = ""  # the institution's student id (Gradescope's SID)
    user_id: str = ""  # the LMS's own id of the user (Canvas's user id)
    participant_id: str = ""  # Moodle's participant id in this assignment (its grading worksheet's "Participant N")


@dataclass(frozen=True)
class Origin:
    """Where a submission came from: carried into its result JSON, summary.csv and the LMS grade files."""

    layout: Layout
    path: str  # the command-line path and, inside it, the submission's part
    submitters: tuple[Submitter, ...] = ()
    submission_id: str = ""  # the LMS's id of this submission (Gradescope)
    late: bool | None = None  # None: the export does not say

    def to_json(self) -> dict:
        return {"layout": str(self.layout), "path": self.path, "submission_id": self.submission_id or None,
                "late": self.late, "submitters": [asdict(s) for s in self.submitters]}


@dataclass(frozen=True)
class Submission:
    name: str  # unique in a grading run: results are DIR/<name>.json
    source: Path  # a directory, a .zip or tar archive, or a notebook (.ipynb)
    members: Members = ()  # when set, only these parts of source (an LMS export holding the whole class)
    origin: Origin | None = None


def fingerprint(submission: Submission) -> str | None:
    """A digest of what `submission` holds as handed in, so that a rerun regrades one that changed (an export
    downloaded again into the same folder, a resubmission) instead of keeping its old result; None where it
    cannot be read (what grading it says again). A directory: each file grading copies (unpack.taken_files),
    by path and content; a zip or notebook: its bytes; part of an LMS export zip: its entries' names, sizes
    and CRCs, read from the zip's directory alone."""
    digest = hashlib.sha256()
    source = submission.source
    try:
        if source.is_dir() and not source.is_symlink():
            for where, path, _ in taken_files(source, submission.members):
                digest.update(f"{where}\0".encode())
                digest.update(_sha256(path))
        elif source.is_file() and submission.members:
            for info in class_zip(source).entries(submission.members):
                digest.update(f"{info.filename}\0{info.file_size}\0{info.CRC}\0".encode())
        elif source.is_file():
            digest.update(_sha256(source))
        else:
            return None
    except (BadSubmission, OSError, zipfile.BadZipFile, EOFError, RuntimeError, ValueError):
        return None
    return digest.hexdigest()[:32]


def _shown(paths: list[str]) -> str:
    more = f", … (+{len(paths) - MAX_SHOWN})" if len(paths) > MAX_SHOWN else ""
    return ", ".join(paths[:MAX_SHOWN]) + more


def survey(root: Path, markers: frozenset[str], listed: list[str] | None = None) -> tuple[list[str], list[str],
                                                                                         list[str]]:
    """Under `root`: (packages: dirs holding __init__.py and an exercise module, subpackages of one left
    out; zips and notebooks; dirs holding exercise modules without __init__.py), as POSIX paths relative to root ("."
    for root itself). `listed`: root's files as walk_files gives them, when the caller has walked it already."""
    files: dict[str, set[str]] = {}
    zips = []
    for rel in listed if listed is not None else (rel for rel, _ in walk_files(root)):
        folder, _, name = rel.rpartition("/")
        files.setdefault(folder or ".", set()).add(name)
        if notebooks.is_upload_file(name):  # a zip, or a notebook (graded as its code cells)
            zips.append(rel)
    found = sorted(d for d, names in files.items() if "__init__.py" in names and names & markers)
    packages = [d for d in found if not any(_inside(d, outer) for outer in found)]
    near = sorted(d for d, names in files.items() if "__init__.py" not in names and names & markers)
    return packages, sorted(zips), near


def _pristine(folder: Path, markers: frozenset[str]) -> bool:
    """Whether every exercise module in `folder` is, byte for byte, one of the templates' (any framework's):
    the handout ships the stubs as student_template/, so a student who hands in the whole handout folder hands
    them in beside their own package, and the two made the upload "two candidate packages", not graded."""
    try:
        present = [_sha256(folder / m) for m in markers if (folder / m).is_file()]
    except OSError:
        return False
    return bool(present) and all(d in _template_digests() for d in present)


@functools.cache
def _template_digests() -> frozenset[bytes]:
    return frozenset(_sha256(f) for f in paths.TEMPLATE_DIR.rglob("*") if f.is_file()) \
        if paths.TEMPLATE_DIR.is_dir() else frozenset()


def _sha256(path: Path) -> bytes:
    """The file's SHA-256 (raises OSError)."""
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").digest()


def _inside(folder: str, outer: str) -> bool:
    return folder != outer and (outer == "." or folder.startswith(outer + "/"))


def locate(root: Path, markers: frozenset[str], listed: list[str] | None = None) -> Path | str:
    """The package directory under `root`, or the relative path of the one zip (or notebook) to read instead;
    raises BadSubmission naming what was found when there is no package, or more than one. `listed`: as
    for survey."""
    packages, zips, near = survey(root, markers, listed)
    if len(packages) > 1:  # a whole handout handed in: its student_template/ beside the student's package
        packages = [d for d in packages if not _pristine(root / d, markers)] or packages
    if len(packages) == 1:
        return root if packages[0] == "." else root / packages[0]
    if packages:
        raise BadSubmission("intake.two_packages", found=_shown(packages))
    if len(zips) == 1:
        return zips[0]
    if zips:
        several = "notebook.several" if any(map(notebooks.is_notebook, zips)) else "intake.several_zips"
        raise BadSubmission(several, found=_shown(zips))
    if (root / "__init__.py").is_file() and not near:  # everything in __init__.py: impl.find_function looks there
        return root
    if len(near) == 1:  # the modules without __init__.py (uploaded one by one): prepare adds the marker
        return root if near[0] == "." else root / near[0]
    if near:  # which of several is the package is not ours to guess: each is named
        raise BadSubmission("intake.several_folders", found=_shown([f"{d}/" for d in near]))
    seen = sorted(listed if listed is not None else (rel for rel, _ in walk_files(root)))
    if not seen:
        raise BadSubmission("upload.empty")
    if unread := [rel for rel in seen if not_unpacked(rel)]:  # a .rar or .7z: say so, not "no package"
        raise BadSubmission("upload.not_unpacked", found=_shown(unread), kind=not_unpacked(unread[0]))
    raise BadSubmission("intake.no_package", modules=", ".join(sorted(markers)), found=_shown(seen))


def _copy_in(submission: Submission, target: Path) -> None:
    src = submission.source
    if not src.exists():
        raise BadSubmission("upload.missing", path=str(src))
    if src.is_file() and src.name.lower().endswith(".zip"):
        count = extract_zip(src, target, submission.members)
    elif src.is_file() and is_tar(src.name) and not submission.members:
        count = extract_tar(src, target)
    elif src.is_file() and notebooks.is_notebook(src.name) and not submission.members:
        count = 1
        notebooks.copy_notebook(src, target)
    elif src.is_dir() and not src.is_symlink():
        count = copy_tree(src, target, submission.members)
    else:
        raise BadSubmission("upload.not_dir_or_zip", path=str(src))
    if count == 0 and submission.members:
        raise BadSubmission("intake.nothing_there", source=src.name,
                            path=", ".join(m for m, _ in submission.members))


def prepare(submission: Submission, workdir: Path, markers: frozenset[str],
            libraries: tuple[str, ...] | None = None) -> Path:
    """A private copy of the submission's package under `workdir` (`libraries`: what the course offers, which
    a notebook's top-level code may import: notebooks.package_of); raises BadSubmission."""
    upload = workdir / "upload"
    upload.mkdir(parents=True, mode=0o700)  # runners of other submissions must not read it
    _copy_in(submission, upload)
    found = locate(upload, markers)
    data_files = frozenset(m for m in markers if not m.endswith(".py"))  # the quiz's answers
    if isinstance(found, Path):
        return _as_package(found)
    if notebooks.is_notebook(found):
        return notebooks.package_of(upload / found, workdir, data_files, libraries)
    inner = workdir / "inner"  # the upload held one zip and no package: the package is in that zip
    inner.mkdir()
    extract_archive(upload / found, inner)
    package = locate(inner, markers)
    if isinstance(package, str) and notebooks.is_notebook(package):
        return notebooks.package_of(inner / package, workdir, data_files, libraries)
    if not isinstance(package, Path):
        raise BadSubmission("intake.zip_in_zip", name=found, inner=package)
    return _as_package(package)


def _as_package(folder: Path) -> Path:
    """The located folder of the private copy as a package: an empty __init__.py where the student's upload
    has none (Gradescope's and Canvas's uploads of files one by one leave it out; every template's __init__.py
    is a docstring alone, so the modules import as they would in the package: `from .softmax import ...`)."""
    marker = folder / "__init__.py"
    if not marker.exists() and not marker.is_symlink():
        marker.write_text("", encoding="utf-8")
    return folder
