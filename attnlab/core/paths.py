"""Where things live, relative to the project (or handout) root that contains harness/."""

from pathlib import Path
from typing import TYPE_CHECKING

from attnlab.core import frameworks

if TYPE_CHECKING:
    from attnlab.core.frameworks.base import Adapter

ROOT = Path(__file__).resolve().parents[2]
SPEC_DIR = ROOT / "spec"
REFERENCE_DIR = ROOT / "reference"
TEMPLATE_DIR = ROOT / "student_template"
FIXTURES_DIR = ROOT / "fixtures"
EXAMPLES_DIR = ROOT / "examples" / "submissions"


def reference_dir(adapter: "Adapter") -> Path:
    """The reference package of a framework: reference/ for the default, reference/<framework>/ for the others."""
    return REFERENCE_DIR / adapter.subfolder


def copy_template(target: Path, adapter: "Adapter") -> Path:
    """A fresh copy of a framework's stubs as a package at `target` (the default's without the other frameworks'
    subfolders, which student_template/ also holds)."""
    import shutil

    others = [name for name in frameworks.NAMES if name != adapter.subfolder]
    return Path(shutil.copytree(template_dir(adapter), target,
                                ignore=shutil.ignore_patterns("__pycache__", *others)))


def examples_dir(adapter: "Adapter") -> Path:
    """The bundled example class of a framework (grade.py's submissions when given none): examples/submissions/
    for the default, examples/<framework>/ for the others."""
    return EXAMPLES_DIR.parent / adapter.subfolder if adapter.subfolder else EXAMPLES_DIR


def template_dir(adapter: "Adapter") -> Path:
    """The generated stubs of a framework: student_template/ for the default, student_template/<framework>/ else."""
    return TEMPLATE_DIR / adapter.subfolder
