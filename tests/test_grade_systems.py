"""The systems assignment through grade.py on the CPU: the reference gets full marks with its Triton kernels
run by the interpreter inside the sandboxed runner (their bfloat16 cases not applicable there); a submission
whose launchers compute with torch instead of kernels gets no points for those exercises, and is told why."""

import importlib.util
import json
import os
import shutil
import subprocess
import sys

import pytest

from attnlab.core import paths

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(importlib.util.find_spec("triton") is None,
                                                  reason="triton is not installed (pip install -e '.[triton]')")]
TRITON = ("triton_flash_forward", "triton_flash_backward")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The reference and torch launchers (the reference with both Triton exercises' modules replaced), graded
    once."""
    root = tmp_path_factory.mktemp("systems")
    launcher = root / "torch_launcher"
    shutil.copytree(paths.ROOT / "reference", launcher, ignore=shutil.ignore_patterns("__pycache__"))
    for exercise_id in TRITON:
        shutil.copy(paths.ROOT / "tests" / "mutations" / exercise_id / "bug_torch_launcher.py",
                    launcher / f"{exercise_id}.py")
    out = root / "out"
    # the judge's environment asks for compiled kernels, as a GPU machine's does: the judge still runs the
    # reference's kernels in the interpreter (on an H100 they compiled, refused its float64 CPU inputs, and the
    # reference lost both Triton exercises); the runner's environment is its own, so this reaches no runner
    judge_env = {**os.environ, "TRITON_INTERPRET": "0"}
    done = subprocess.run([sys.executable, str(paths.ROOT / "grade.py"), str(paths.ROOT / "reference"), str(launcher),
                           "--assignment", "systems", "--out", str(out), "--seed", "5", "--jobs", "2"],
                          capture_output=True, text=True, timeout=900, cwd=paths.ROOT, env=judge_env)
    assert done.returncode == 0, done.stderr
    return {name: json.loads((out / f"{name}.json").read_text()) for name in ("reference", "torch_launcher")}


def exercise(result: dict, exercise_id: str) -> dict:
    return next(e for e in result["exercises"] if e["id"] == exercise_id)


@pytest.mark.parametrize("exercise_id", TRITON)
def test_the_reference_gets_full_marks_with_bfloat16_not_applicable(graded, exercise_id):
    assert graded["reference"]["score"] == graded["reference"]["max_score"] == 100
    checks = {c["name"]: c["status"] for c in exercise(graded["reference"], exercise_id)["checks"]}
    assert checks.pop("bfloat16") == "not_applicable" and set(checks.values()) == {"passed"}


@pytest.mark.parametrize("exercise_id", TRITON)
def test_a_torch_launcher_gets_no_points_and_says_why(graded, exercise_id):
    launcher = exercise(graded["torch_launcher"], exercise_id)
    assert (launcher["score"], launcher["status"]) == (0, "forbidden")
    assert "computed with torch" in launcher["feedback"] and "outside a Triton kernel" in launcher["feedback"]


def test_only_the_torch_launchers_lose_points(graded):
    lost = sum(exercise(graded["torch_launcher"], e)["max_score"] for e in TRITON)
    assert graded["torch_launcher"]["score"] == 100 - lost  # the other exercises are untouched
