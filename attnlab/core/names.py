"""Names of submissions: safe as file names everywhere results go (DIR/<name>.json, a zip's name).

Used by `attnlab submit` (the student's side) and by grade.py's intake, so that the name a student gives
and the name a result carries are made the same way.
"""

import re
import unicodedata

MAX_NAME = 80
SUBMIT_SUFFIX = "-submission"  # `attnlab submit` writes <name>-submission.zip
TAR_SUFFIXES = (".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz", ".tar")  # what grade.py unpacks too


def _kept(ch: str) -> bool:
    """Letters, digits, '.', '-', '_', and the combining marks of any script: the acute of Yorùbá "ọ́" has no
    precomposed form and stays a mark after NFC, and is as much a part of the name as the letter."""
    return ch.isalnum() or ch in "._-" or unicodedata.category(ch).startswith("M")


def slug(text: str) -> str:
    """`text` as a file-safe name: letters of any script with their marks, digits, '.', '-' and '_' kept,
    every other run of characters replaced by '_', no leading or trailing '.', '-' or '_' (so never hidden,
    never an option), at most MAX_NAME characters; '' when nothing is left. The name to show a person is
    `display_name`, not this."""
    text = unicodedata.normalize("NFKC", text)
    text = re.sub("\0+", "_", "".join(ch if _kept(ch) else "\0" for ch in text)).strip("._-")
    return text[:MAX_NAME].rstrip("._-")


def display_name(text: str) -> str:
    """A person's name as an export wrote it, kept exactly but for Unicode normalization (NFC: a zip made on
    macOS stores names decomposed) and runs of white space (one space)."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def stem_of(file_name: str) -> str:
    """A file's name without `.zip`, `.ipynb` or a tar archive's suffix, and without the `-submission` that
    `attnlab submit` adds."""
    stem = file_name
    for suffix in (".zip", ".ipynb", *TAR_SUFFIXES):
        stem = stem[: -len(suffix)] if stem.lower().endswith(suffix) else stem
    if stem.lower().endswith(SUBMIT_SUFFIX) and len(stem) > len(SUBMIT_SUFFIX):
        stem = stem[: -len(SUBMIT_SUFFIX)]
    return stem
