"""Where things live, relative to the project (or handout) root that contains harness/."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPEC_DIR = ROOT / "spec"
REFERENCE_DIR = ROOT / "reference"
TEMPLATE_DIR = ROOT / "student_template"
FIXTURES_DIR = ROOT / "fixtures"
EXAMPLES_DIR = ROOT / "examples" / "submissions"
