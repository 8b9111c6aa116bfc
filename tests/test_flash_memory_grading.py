"""The flash_attention memory rule through grade.py: a submission that materialises the 12288 x 12288
score matrix (right values) fails the long case, named by the tensor it made, and only that case; the
reference keeps full marks on the modern assignment."""

import json
import shutil
import subprocess
import sys

import pytest

from attnlab.core import paths
from attnlab.core.spec_load import load_course

pytestmark = pytest.mark.e2e  # starts grade.py and its runners

MATERIALISES = paths.ROOT / "tests" / "mutations" / "flash_attention" / "bug_materialises_scores.py"


def test_a_materialising_flash_is_named_by_its_scores_matrix(tmp_path):
    submission = tmp_path / "materialises"
    shutil.copytree(paths.TEMPLATE_DIR, submission)
    shutil.copy(MATERIALISES, submission / "flash_attention.py")
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, str(paths.ROOT / "grade.py"), str(submission), str(paths.REFERENCE_DIR),
                           "--assignment", "modern", "--out", str(out), "--seed", "3", "--jobs", "2"],
                          capture_output=True, text=True, timeout=600, cwd=paths.ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    flash = {e["id"]: e for e in json.loads((out / "materialises.json").read_text())["exercises"]}["flash_attention"]
    assert "case long_sequence_memory" in flash["feedback"]
    assert "float32 tensor of shape (1, 12288, 12288) (576 MB, in bmm)" in flash["feedback"]
    assert "budget of 8 MB" in flash["feedback"]
    assert 0 < flash["score"] < flash["max_score"]  # every other check passes: the values are right
    reference = json.loads((out / "reference.json").read_text())
    assert reference["score"] == reference["max_score"] == sum(e.points for e in load_course(paths.SPEC_DIR, "modern").exercises)
