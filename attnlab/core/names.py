"""Names of submissions: safe as file names everywhere results go (DIR/<name>.json, a zip's name).

Used by `attnlab submit` (the student's side) and by grade.py's intake, so that the name a student gives
and the name a result carries are made the same way.
"""

import re
import unicodedata

MAX_NAME = 80
SUBMIT_SUFFIX = "-submission"  # `attnlab submit` writes <name>-submission.zip


def slug(text: str) -> str:
    """`text` as a name: letters of any script, digits, '.', '-' and '_' kept, every other run of
    characters replaced by '_', no leading or trailing '.', '-' or '_' (so never hidden, never an option),
    at most MAX_NAME characters; '' when nothing is left."""
    text = unicodedata.normalize("NFKC", text)
    text = re.sub(r"[^\w.-]+", "_", text).strip("._-")
    return text[:MAX_NAME].rstrip("._-")


def stem_of(file_name: str) -> str:
    """A file's name without `.zip` or `.ipynb` and without the `-submission` that `attnlab submit` adds."""
    stem = file_name
    for suffix in (".zip", ".ipynb"):
        stem = stem[: -len(suffix)] if stem.lower().endswith(suffix) else stem
    if stem.lower().endswith(SUBMIT_SUFFIX) and len(stem) > len(SUBMIT_SUFFIX):
        stem = stem[: -len(SUBMIT_SUFFIX)]
    return stem
