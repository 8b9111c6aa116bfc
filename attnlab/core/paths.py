"""Where things live, relative to the project (or handout) root that contains harness/."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPEC_DIR = ROOT / "spec"
REFERENCE_DIR = ROOT / "reference"
TEMPLATE_DIR = ROOT / "student_template"
FIXTURES_DIR = ROOT / "fixtures"
EXAMPLES_DIR = ROOT / "examples" / "submissions"


def reference_dir(framework: str = "torch") -> Path:
    """The reference package of a framework: reference/ for torch, reference/<framework>/ for the others."""
    return REFERENCE_DIR if framework == "torch" else REFERENCE_DIR / framework


def copy_template(target: Path, framework: str = "torch") -> Path:
    """A fresh copy of a framework's stubs as a package at `target` (torch's without the other frameworks'
    subfolders, which student_template/ also holds)."""
    import shutil

    others = [name for name in ("numpy", "jax", "mindspore") if name != framework]
    return Path(shutil.copytree(template_dir(framework), target,
                                ignore=shutil.ignore_patterns("__pycache__", *others)))


def examples_dir(framework: str = "torch") -> Path:
    """The bundled example class of a framework (grade.py's submissions when given none): examples/submissions/
    for torch, examples/<framework>/ for the others."""
    return EXAMPLES_DIR if framework == "torch" else EXAMPLES_DIR.parent / framework


def template_dir(framework: str = "torch") -> Path:
    """The generated stubs of a framework: student_template/ for torch, student_template/<framework>/ else."""
    return TEMPLATE_DIR if framework == "torch" else TEMPLATE_DIR / framework
