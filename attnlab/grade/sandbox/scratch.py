"""A runner's scratch dir: a private copy of the submission, owned by the runner user.

The copy never follows links (a symlink to reference/ would otherwise be copied with the judge's rights)
and skips anything that is not a regular file or a directory (a FIFO would block the copy).
"""

import os
import re
import shutil
import stat
from pathlib import Path

from attnlab.core.outcomes import SubmissionError

MAX_SUBMISSION_BYTES = 256 << 20
MAX_SUBMISSION_FILES = 10_000


def package_name(submission_dir: Path) -> str:
    """A safe directory name for the package copy (it appears in the runner's command line)."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", submission_dir.name).lstrip(".") or "submission"


def copy_submission(submission_dir: Path, scratch: Path, *, owner: tuple[int, int] | None) -> str:
    """Copy `submission_dir` into `scratch`/<name>; chown everything to `owner`; return <name>."""
    if not submission_dir.is_dir():
        raise SubmissionError("upload.not_a_directory", path=str(submission_dir))
    name = package_name(submission_dir)
    _copy_dir(submission_dir, scratch / name, budget=[MAX_SUBMISSION_BYTES, MAX_SUBMISSION_FILES])
    if owner is not None:
        for path in [scratch, *scratch.rglob("*")]:
            os.lchown(path, *owner)
    os.chmod(scratch, 0o700)
    return name


def _copy_dir(source: Path, target: Path, *, budget: list[int]) -> None:
    target.mkdir()
    for entry in os.scandir(source):
        mode = entry.stat(follow_symlinks=False).st_mode
        budget[1] -= 1
        if budget[1] < 0:
            raise SubmissionError("upload.too_many_files", path=str(source), limit=MAX_SUBMISSION_FILES)
        if stat.S_ISDIR(mode):
            _copy_dir(Path(entry.path), target / entry.name, budget=budget)
        elif stat.S_ISLNK(mode):
            os.symlink(os.readlink(entry.path), target / entry.name)  # resolved inside the jail, if ever
        elif stat.S_ISREG(mode):
            budget[0] -= entry.stat(follow_symlinks=False).st_size
            if budget[0] < 0:
                raise SubmissionError("upload.too_large", path=str(source), mb=MAX_SUBMISSION_BYTES >> 20)
            shutil.copyfile(entry.path, target / entry.name, follow_symlinks=False)


def remove_tree(path: Path) -> None:
    """rm -rf, also through dirs the submission made unreadable (chmod 000) when not root, and quietly where
    another process removes part of it first (two runs starting at once sweep the same dead run's dirs).
    Nothing above `path` is ever changed: its parent is /tmp, shared with every user of the machine."""
    top = os.path.abspath(path)
    retried: set[str] = set()

    def retry(func, failed, exc_info):
        if isinstance(exc_info[1], FileNotFoundError):
            return  # removed meanwhile
        failed = os.path.abspath(failed)
        if failed in retried:  # made accessible once already: this failure is not about modes
            raise exc_info[1]
        retried.add(failed)
        if failed != top:
            os.chmod(os.path.dirname(failed), 0o700)
        if os.path.isdir(failed) and not os.path.islink(failed):
            os.chmod(failed, 0o700)
            if func in (os.open, os.scandir):  # a dir it could not enter (os.open wants flags): now it can
                shutil.rmtree(failed, onerror=retry)
                return
        func(failed)

    if path.exists():
        shutil.rmtree(path, onerror=retry)  # onerror: Python 3.10/3.11 have no onexc
