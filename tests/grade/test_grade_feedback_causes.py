"""grade.py names the real cause (issue 22): one submission of the attention assignment, graded once in the
sandbox, whose scaled_dot_product_attention takes its softmax in float32 (the Llama idiom) and whose dropout
returns its input in eval mode and at p = 0 (as torch.nn.Dropout does). The first is told its float64 result
has float32 precision, not the exercise's general hint; the second gets full marks."""

import json
import subprocess
import sys

import pytest

from attnlab.core import paths
from attnlab.core.spec_load import load_course

pytestmark = pytest.mark.e2e  # starts grade.py and its runner

CORPUS = paths.ROOT / "tests" / "mutations"
COURSE = load_course(paths.SPEC_DIR, "attention")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("causes")
    package = root / "class" / "llama_style"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    module = COURSE.find("dropout").module  # attention.py holds both functions
    assert COURSE.find("scaled_dot_product_attention").module == module
    sources = [CORPUS / "scaled_dot_product_attention" / "bug_softmax_in_float32.py",
               CORPUS / "dropout" / "alt_module_identity_p_zero.py"]
    (package / f"{module}.py").write_text("\n\n".join(p.read_text(encoding="utf-8") for p in sources))
    out = root / "out"
    proc = subprocess.run([sys.executable, str(paths.ROOT / "grade.py"), "--assignment", "attention", "--seed", "3",
                           "--jobs", "1", "--out", str(out), str(package)],
                          capture_output=True, text=True, timeout=600, cwd=paths.ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads((out / "llama_style.json").read_text(encoding="utf-8"))
    return {e["id"]: e for e in result["exercises"]}


def test_a_float32_softmax_on_float64_inputs_is_told_its_precision(graded):
    sdpa = graded["scaled_dot_product_attention"]
    exercise = COURSE.find("scaled_dot_product_attention")
    assert 0 < sdpa["score"] < exercise.points  # the float64 case (and the float64 gradient) fail
    assert "float32_precision" in sdpa["diagnoses"]
    assert "Likely cause: your float64 output has float32 precision" in sdpa["feedback"]
    assert "rounding float64 down to float32 loses precision" in sdpa["feedback"]  # its own hint
    assert exercise.hint("en") not in sdpa["feedback"]  # not the exercise's general hint


def test_dropout_returning_its_input_where_torch_does_gets_full_marks(graded):
    dropout = graded["dropout"]
    assert dropout["score"] == COURSE.find("dropout").points, dropout["feedback"]
    assert "return a new tensor" not in dropout["feedback"]
