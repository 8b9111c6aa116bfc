"""Which code is the student's: a frame whose file lies outside the Python installation's library folders
(standard library, site-packages) and outside the harness. Tracebacks name the student's innermost line
with it, and NumPy's memory budget charges a student's line with what the libraries it calls allocate."""

import sysconfig
from pathlib import Path

_LIBRARY_DIRS = tuple({sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")})
_HARNESS_DIR = str(Path(__file__).resolve().parents[1])


def is_student_frame(filename: str) -> bool:
    """True for a file of the submission (or any code not installed and not the harness's)."""
    return not filename.startswith(_LIBRARY_DIRS + (_HARNESS_DIR, "<"))
