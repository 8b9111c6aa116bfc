"""The systems assignment through grade.py on the CPU: the reference gets full marks with its Triton kernel
run by the interpreter inside the sandboxed runner (its bfloat16 case not applicable there); a submission
whose launcher computes with torch instead of a kernel gets no points for that exercise, and is told why."""

import importlib.util
import json
import shutil
import subprocess
import sys

import pytest

from attnlab.core import paths

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(importlib.util.find_spec("triton") is None,
                                                  reason="triton is not installed (pip install -e '.[triton]')")]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The reference and a torch launcher (the reference with triton_flash_forward.py replaced), graded once."""
    root = tmp_path_factory.mktemp("systems")
    launcher = root / "torch_launcher"
    shutil.copytree(paths.ROOT / "reference", launcher, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(paths.ROOT / "tests" / "mutations" / "triton_flash_forward" / "bug_torch_launcher.py",
                launcher / "triton_flash_forward.py")
    out = root / "out"
    done = subprocess.run([sys.executable, str(paths.ROOT / "grade.py"), str(paths.ROOT / "reference"), str(launcher),
                           "--assignment", "systems", "--out", str(out), "--seed", "5", "--jobs", "2"],
                          capture_output=True, text=True, timeout=900, cwd=paths.ROOT)
    assert done.returncode == 0, done.stderr
    return {name: json.loads((out / f"{name}.json").read_text()) for name in ("reference", "torch_launcher")}


def exercise(result: dict, exercise_id: str) -> dict:
    return next(e for e in result["exercises"] if e["id"] == exercise_id)


def test_the_reference_gets_full_marks_with_bfloat16_not_applicable(graded):
    assert graded["reference"]["score"] == graded["reference"]["max_score"] == 100
    checks = {c["name"]: c["status"] for c in exercise(graded["reference"], "triton_flash_forward")["checks"]}
    assert checks.pop("bfloat16") == "not_applicable" and set(checks.values()) == {"passed"}


def test_a_torch_launcher_gets_no_points_and_says_why(graded):
    launcher = exercise(graded["torch_launcher"], "triton_flash_forward")
    assert (launcher["score"], launcher["status"]) == (0, "forbidden")
    assert "computed with torch" in launcher["feedback"] and "outside a Triton kernel" in launcher["feedback"]
    assert graded["torch_launcher"]["score"] == 100 - launcher["max_score"]  # the other exercises are untouched
