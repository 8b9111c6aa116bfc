"""grade.py grades a class of MindSpore submissions (examples/mindspore/) in its sandbox, at the isolation level
torch submissions get on this machine: the reference scores full marks, the untouched template 0, the
library calls are forbidden, the buggy one's seed-001 habits are diagnosed, and bfloat16 cases are shown as
not applicable. The modern assignment likewise: the reference, with the modern quiz's answers, gets full
marks (FlashAttention's long case within its memory budget), the template 0. Runs where MindSpore is
installed (.venv-mindspore: tests/test_mindspore_venv.py runs it there).
"""

import json
import shutil
import subprocess
import sys

import pytest

from attnlab.core import frameworks, paths
from attnlab.core.status import Status
from attnlab.grade.sandbox.levels import isolation_level

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(
    not frameworks.adapter("mindspore").available(),
    reason="mindspore is not installed here (scripts/venv-mindspore makes .venv-mindspore)")]

CLASS = paths.ROOT / "examples" / "mindspore"


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    out = tmp_path_factory.mktemp("mindspore-class")
    proc = subprocess.run([sys.executable, str(paths.ROOT / "grade.py"), "--framework", "mindspore", str(CLASS),
                           "--out", str(out), "--seed", "5", "--jobs", "2"], capture_output=True, text=True,
                          timeout=900, cwd=paths.ROOT)
    results = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in out.glob("*.json")
               if p.name != "grading-run.json"}
    return proc, results


@pytest.fixture(scope="module")
def graded_modern(tmp_path_factory):
    """The modern assignment: the reference with the course's answers to the modern quiz, and the template."""
    work = tmp_path_factory.mktemp("mindspore-modern")
    for name, package, answers in (("reference", paths.reference_dir(frameworks.adapter("mindspore")),
                                    paths.REFERENCE_DIR),
                                   ("untouched_template", paths.template_dir(frameworks.adapter("mindspore")),
                                    paths.TEMPLATE_DIR)):
        shutil.copytree(package, work / "class" / name, ignore=shutil.ignore_patterns("__pycache__", "quiz.yaml"))
        shutil.copy2(answers / "modern_quiz.yaml", work / "class" / name / "modern_quiz.yaml")
    proc = subprocess.run([sys.executable, str(paths.ROOT / "grade.py"), "--framework", "mindspore", "--assignment",
                           "modern", str(work / "class"), "--out", str(work / "out"), "--seed", "5", "--jobs", "2"],
                          capture_output=True, text=True, timeout=900, cwd=paths.ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in (work / "out").glob("*.json")
            if p.name != "grading-run.json"}


def exercise(results, submission: str, exercise_id: str) -> dict:
    return next(e for e in results[submission]["exercises"] if e["id"] == exercise_id)


def test_the_class_is_graded_in_mindspore_at_torchs_isolation_level(graded):
    proc, results = graded
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert f"in mindspore, isolation: {isolation_level('auto').value}" in proc.stderr
    assert set(results) == {"reference", "untouched_template", "wang_partial", "li_buggy", "zhao_library_calls"}
    assert all(r["framework"] == "mindspore" for r in results.values())


def test_reference_full_marks_template_zero(graded):
    _, results = graded
    assert results["reference"]["score"] == results["reference"]["max_score"] == 100
    assert results["untouched_template"]["score"] == 0
    assert 0 < results["wang_partial"]["score"] < 50


def test_bfloat16_cases_are_shown_as_not_applicable(graded):
    _, results = graded
    softmax = exercise(results, "reference", "softmax")
    assert softmax["status"] == Status.PASSED
    assert "not applicable in mindspore" in softmax["feedback"]


def test_library_calls_are_forbidden_and_seed_habits_diagnosed(graded):
    _, results = graded
    for exercise_id, call in (("softmax", "mindspore.nn.Softmax"), ("dropout", "mindspore.nn.Dropout")):
        found = exercise(results, "zhao_library_calls", exercise_id)
        assert found["status"] == Status.FORBIDDEN and found["score"] == 0 and call in found["feedback"]
    assert "WHOLE tensor" in exercise(results, "li_buggy", "softmax")["feedback"]  # ReduceMax without an axis
    assert "dim 0" in exercise(results, "li_buggy", "simple_self_attention")["feedback"]  # nn.Softmax(axis=0)
    assert "different seeds" in exercise(results, "li_buggy", "dropout")["feedback"]  # set_seed(123)
    assert exercise(results, "li_buggy", "causal_mask")["status"] == Status.PASSED



def test_modern_reference_full_marks_template_zero(graded_modern):
    reference, template = graded_modern["reference"], graded_modern["untouched_template"]
    assert reference["framework"] == "mindspore"
    assert reference["score"] == reference["max_score"] == 100, [e["feedback"] for e in reference["exercises"]]
    assert template["score"] == 0
    assert all(e["status"] == Status.NOT_IMPLEMENTED for e in template["exercises"])
    flash = exercise(graded_modern, "reference", "flash_attention")
    assert flash["status"] == Status.PASSED and "not applicable in mindspore" in flash["feedback"]  # bfloat16
