"""grade.py names the real cause (issue 22): submissions of the attention assignment, graded once in the
sandbox. One's scaled_dot_product_attention takes its softmax in float32 (the Llama idiom) and its dropout
returns its input in eval mode and at p = 0 (as torch.nn.Dropout does): the first is told its float64 result
has float32 precision, not the exercise's general hint; the second gets full marks. Another is the reference
with run_softmax missing its `return`: every exercise built on it is told to mend softmax first."""

import json
import subprocess
import sys

import pytest
from reference_copies import softmax_without_return

from attnlab.core import paths
from attnlab.core.spec_load import load_course

pytestmark = pytest.mark.e2e  # starts grade.py and its runner

CORPUS = paths.ROOT / "tests" / "mutations"
COURSE = load_course(paths.SPEC_DIR, "attention")


@pytest.fixture(scope="module")
def graded(graded_class):
    return graded_class["llama_style"]


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory):
    root = tmp_path_factory.mktemp("causes")
    package = root / "class" / "llama_style"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    module = COURSE.find("dropout").module  # attention.py holds both functions
    assert COURSE.find("scaled_dot_product_attention").module == module
    sources = [CORPUS / "scaled_dot_product_attention" / "bug_softmax_in_float32.py",
               CORPUS / "dropout" / "alt_module_identity_p_zero.py"]
    (package / f"{module}.py").write_text("\n\n".join(p.read_text(encoding="utf-8") for p in sources))
    no_return = softmax_without_return(root / "class" / "softmax_no_return")
    out = root / "out"
    proc = subprocess.run([sys.executable, str(paths.ROOT / "grade.py"), "--assignment", "attention", "--seed", "3",
                           "--jobs", "1", "--out", str(out), str(package), str(no_return)],
                          capture_output=True, text=True, timeout=600, cwd=paths.ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    results = {name: json.loads((out / f"{name}.json").read_text(encoding="utf-8"))
               for name in ("llama_style", "softmax_no_return")}
    return {name: {e["id"]: e for e in result["exercises"]} for name, result in results.items()}


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


def test_exercises_built_on_a_broken_softmax_are_told_to_mend_it_first(graded_class):
    """The reference with run_softmax missing its `return`: softmax fails, and so does every exercise that calls
    it ("unsupported operand type(s) for @: 'NoneType' and 'Tensor'"), whose code is right. Their feedback
    opens by naming the function they call and saying to fix it first; softmax's own and the exercises that do
    not call it (the mask, dropout) say nothing of the kind."""
    broken = graded_class["softmax_no_return"]
    assert broken["softmax"]["status"] == "error"
    assert not broken["softmax"]["feedback"].startswith("Fix ")
    for exercise in ("simple_self_attention", "scaled_dot_product_attention", "multihead_self_attention"):
        first = broken[exercise]["feedback"].splitlines()[0]
        assert broken[exercise]["status"] == "error", exercise
        assert first.startswith("Fix softmax first: run_") and "calls your run_softmax (softmax)" in first, first
    assert "run_scaled_dot_product_attention (scaled_dot_product_attention)" in \
        broken["self_attention"]["feedback"].splitlines()[0]  # it calls both, and both fail
    for exercise in ("causal_mask", "dropout"):
        assert broken[exercise]["status"] == "passed" and broken[exercise]["feedback"] == "passed"
    assert not any(e["feedback"].startswith("Fix ") for e in graded_class["llama_style"].values())
