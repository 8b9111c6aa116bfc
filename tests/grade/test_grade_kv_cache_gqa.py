"""grade.py --assignment modern through the sandboxed runner: kv_cache_attention's three outputs, empty
caches and in-place changes cross the channel, GQA's head mapping is diagnosed; the reference scores full
marks and the untouched template 0; a float32 softmax is told its precision, not the mask hint."""

import json
import shutil
import subprocess
import sys

import pytest

from attnlab.core import paths
from attnlab.core.spec_load import load_course

pytestmark = pytest.mark.e2e  # starts grade.py and its runners

CORPUS = paths.ROOT / "tests" / "mutations"


def package(root, name: str, kv: str, gqa: str):
    """A submission made of one corpus file per exercise."""
    target = root / name
    target.mkdir()
    (target / "__init__.py").write_text("")
    shutil.copy(CORPUS / "kv_cache_attention" / f"{kv}.py", target / "kv_cache_attention.py")
    shutil.copy(CORPUS / "grouped_query_attention" / f"{gqa}.py", target / "grouped_query_attention.py")
    return target


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("modern")
    offset = package(root, "offset_and_modulo", "bug_tril_without_offset", "bug_repeat_tiles_kv_heads")
    in_place = package(root, "in_place", "bug_scales_Q_in_place", "alt_module_nn_linear")
    float32_softmax = package(root, "float32_softmax", "bug_softmax_in_float32", "alt_module_nn_linear")
    out = root / "out"
    proc = subprocess.run([sys.executable, str(paths.ROOT / "grade.py"), "--assignment", "modern", "--seed", "3",
                           "--jobs", "2", "--out", str(out), str(paths.REFERENCE_DIR), str(paths.TEMPLATE_DIR),
                           str(offset), str(in_place), str(float32_softmax)],
                          capture_output=True, text=True, timeout=600, cwd=paths.ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return {p.stem: json.loads(p.read_text()) for p in out.glob("*.json") if p.stem != "grading-run"}


def exercise(result: dict, exercise_id: str) -> dict:
    return next(e for e in result["exercises"] if e["id"] == exercise_id)


def test_reference_full_marks_template_zero(graded):
    points = sum(e.points for e in load_course(paths.SPEC_DIR, "modern").exercises)
    assert graded["reference"]["score"] == graded["reference"]["max_score"] == points
    assert graded["student_template"]["score"] == 0


def test_the_cache_offset_and_the_kv_head_mapping_are_named(graded):
    kv = exercise(graded["offset_and_modulo"], "kv_cache_attention")
    gqa = exercise(graded["offset_and_modulo"], "grouped_query_attention")
    assert 0 < kv["score"] < 14 and "shift the diagonal by t_past" in kv["feedback"]
    assert 0 < gqa["score"] < 14 and "h % num_kv_heads" in gqa["feedback"]


def test_an_argument_changed_in_place_is_named_and_a_module_with_loaded_weights_passes(graded):
    kv = exercise(graded["in_place"], "kv_cache_attention")
    assert kv["score"] == 0 and "modified its input(s) Q in place" in kv["feedback"]
    assert exercise(graded["in_place"], "grouped_query_attention")["score"] == 14


def test_a_float32_softmax_is_told_its_precision_not_the_mask_hint(graded):
    """Correct attention with the Llama idiom softmax(scores.float()).type_as(Q) fails the float64 case by
    ~1e-7: the feedback says float32 precision, and not the exercise's general hint about the shifted mask."""
    kv = exercise(graded["float32_softmax"], "kv_cache_attention")
    assert 0 < kv["score"] < 14 and "float32_precision" in kv["diagnoses"]
    assert "your float64 output has float32 precision" in kv["feedback"]
    assert "diagonal is shifted by t_past" not in kv["feedback"]
