"""The Python sources of a directory of submissions, read as grade.py takes them in: package directories
or .zip files, with the same checks on the upload (attnlab.grade.batch.submissions), never imported.
"""

import tempfile
from pathlib import Path

from attnlab.core.i18n import Message
from attnlab.grade.batch.submissions import BadSubmission, Submission, check_tree, name_of, prepare

MAX_SOURCE_BYTES = 1 << 20  # a larger .py file is not a hand-written solution: left out


def _python_files(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8", errors="replace")
            for p in sorted(root.rglob("*.py")) if p.is_file() and p.stat().st_size <= MAX_SOURCE_BYTES}


def read_sources(directory: Path) -> tuple[dict[str, dict[str, str]], dict[str, Message]]:
    """Submission name -> {path in the package: text}, and name -> why it could not be read."""
    found: dict[str, dict[str, str]] = {}
    skipped: dict[str, Message] = {}
    for entry in sorted(directory.iterdir()):
        if entry.name.startswith("."):
            continue
        name = name_of(entry)
        try:
            if entry.is_dir():
                found[name] = _python_files(check_tree(entry))
            elif entry.name.lower().endswith(".zip"):
                with tempfile.TemporaryDirectory(prefix="attnlab-similarity-") as work:
                    found[name] = _python_files(prepare(Submission(name, entry), Path(work)))
        except BadSubmission as problem:
            skipped[name] = problem.message
    return found, skipped
