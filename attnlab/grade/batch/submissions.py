"""Taking in submissions: a directory laid out like student_template/, or a .zip of one.

Everything that can be wrong with the upload itself is found here, before any code runs, and becomes
one clear per-submission message: missing or empty, not a package, symlinks, zip entries escaping with
../ or absolute paths, non-UTF-8 names, zip bombs (caps on entries, total size and ratio, enforced
while reading, not trusted from the header).
"""

import shutil
import stat
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from attnlab.core.i18n import Message

MAX_ENTRIES = 2000
MAX_TOTAL_BYTES = 50 * 1024 * 1024
MAX_RATIO = 200
CHUNK = 1 << 16


class BadSubmission(Exception):
    """The upload cannot be graded; `message` (a catalogue message) is shown to the student."""

    def __init__(self, key: str, /, **values):
        self.message = Message(key, values)
        super().__init__(key)

    def __str__(self) -> str:
        return self.message.text("en")


@dataclass(frozen=True)
class Submission:
    name: str
    source: Path


def name_of(path: Path) -> str:
    return path.name[: -len(".zip")] if path.name.lower().endswith(".zip") else path.name


def check_tree(root: Path) -> Path:
    """The package directory inside `root` (itself, or its single subdirectory holding __init__.py)."""
    entries = [p for p in root.rglob("*")]
    links = [p for p in entries if p.is_symlink()]
    if links:
        raise BadSubmission("upload.symlink", path=str(links[0].relative_to(root)))
    if not any(p.is_file() for p in entries):
        raise BadSubmission("upload.empty")
    if (root / "__init__.py").is_file():
        return root
    children = [p for p in root.iterdir() if p.is_dir() and (p / "__init__.py").is_file()]
    if len(children) == 1:
        return children[0]
    raise BadSubmission("upload.no_package")


def _safe_member(info: zipfile.ZipInfo) -> PurePosixPath:
    if not info.flag_bits & 0x800 and any(ord(ch) > 127 for ch in info.filename):
        raise BadSubmission("upload.name_not_utf8", name=repr(info.filename))
    path = PurePosixPath(info.filename)
    if path.is_absolute() or ".." in path.parts or "\\" in info.filename or ":" in info.filename:
        raise BadSubmission("upload.escapes", name=repr(info.filename))
    if stat.S_ISLNK(info.external_attr >> 16):
        raise BadSubmission("upload.zip_symlink", name=repr(info.filename))
    return path


def extract_zip(archive: Path, target: Path) -> None:
    """Extract with caps counted on the bytes actually inflated."""
    try:
        zf = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError) as exc:
        raise BadSubmission("upload.bad_zip", problem=str(exc)) from None
    with zf:
        members = zf.infolist()
        if len(members) > MAX_ENTRIES:
            raise BadSubmission("upload.too_many_entries", count=len(members), limit=MAX_ENTRIES)
        total = 0
        for info in members:
            rel = _safe_member(info)
            dest = target.joinpath(*rel.parts)
            if info.is_dir():
                dest.mkdir(parents=True, exist_ok=True)
                continue
            dest.parent.mkdir(parents=True, exist_ok=True)
            written = 0
            with zf.open(info) as src, open(dest, "wb") as out:
                while chunk := src.read(CHUNK):
                    written += len(chunk)
                    total += len(chunk)
                    if total > MAX_TOTAL_BYTES:
                        raise BadSubmission("upload.too_big", mb=MAX_TOTAL_BYTES >> 20)
                    if written > MAX_RATIO * max(info.compress_size, 1) + CHUNK:
                        raise BadSubmission("upload.bomb", name=repr(info.filename))
                    out.write(chunk)


def prepare(submission: Submission, workdir: Path) -> Path:
    """A private copy of the submission's package under `workdir`; raises BadSubmission."""
    src = submission.source
    target = workdir / "upload"
    target.mkdir(parents=True, mode=0o700)  # runners of other submissions must not read it
    if not src.exists():
        raise BadSubmission("upload.missing", path=str(src))
    if src.is_file() and src.name.lower().endswith(".zip"):
        extract_zip(src, target)
    elif src.is_dir():
        check_tree(src)  # refuse symlinks before copying anything
        shutil.copytree(src, target, dirs_exist_ok=True, symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    else:
        raise BadSubmission("upload.not_dir_or_zip", path=str(src))
    return check_tree(target)
