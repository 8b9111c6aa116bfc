"""Copies of the torch reference as a student's package, and the broken copy several tests grade: run_softmax
without its `return` (every attention exercise that calls it fails too: attnlab.core.callees)."""

import shutil
from pathlib import Path

from attnlab.core import paths

OTHER_FILES = shutil.ignore_patterns("__pycache__", "misconceptions", "numpy", "jax", "mindspore")


def reference_copy(target: Path) -> Path:
    """The torch reference at `target`, without its other frameworks' subfolders and its misconceptions."""
    return Path(shutil.copytree(paths.REFERENCE_DIR, target, ignore=OTHER_FILES))


def softmax_without_return(target: Path) -> Path:
    """The reference at `target`, but for run_softmax's last line: its result is computed, never returned."""
    package = reference_copy(target)
    softmax = package / "softmax.py"
    written = softmax.read_text(encoding="utf-8")
    assert written.count("    return exponentials / ") == 1
    softmax.write_text(written.replace("    return exponentials / ", "    exponentials = exponentials / "), "utf-8")
    return package
