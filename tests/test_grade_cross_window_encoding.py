"""grade.py --assignment modern on sinusoidal_positional_encoding, cross_attention and sliding_window_attention,
through the sandboxed runner: the reference earns every point, the untouched template none, and a package
with one known bug per exercise loses points with the misconception named in its feedback."""

import json
import shutil
import subprocess
import sys

import pytest

from attnlab.core import frameworks, paths

pytestmark = pytest.mark.e2e  # starts grade.py and its runners

MUTATIONS = paths.ROOT / "tests" / "mutations"
BUGS = {  # exercise id -> (bug in tests/mutations/<id>/, its misconception, a fragment of that one's message)
    "sinusoidal_positional_encoding": ("bug_sin_cos_swapped", "sin_cos_swapped", "cos in the even columns"),
    "cross_attention": ("bug_mask_unsqueeze_once", "mask_on_wrong_axis", "broadcasts the batch axis against"),
    "sliding_window_attention": ("bug_window_plus_one", "window_plus_one", "window_size=(window, 0)"),
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    work = tmp_path_factory.mktemp("modern")
    buggy = work / "buggy"
    paths.copy_template(buggy, frameworks.default())
    for exercise_id, (bug, *_) in BUGS.items():
        shutil.copy(MUTATIONS / exercise_id / f"{bug}.py", buggy / f"{exercise_id}.py")
    out = work / "out"
    proc = subprocess.run([sys.executable, str(paths.ROOT / "grade.py"), paths.REFERENCE_DIR, paths.TEMPLATE_DIR,
                           buggy, "--assignment", "modern", "--out", out, "--seed", "11", "--jobs", "2"],
                          capture_output=True, text=True, timeout=600, cwd=paths.ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return {name: {e["id"]: e for e in json.loads((out / f"{name}.json").read_text())["exercises"]}
            for name in ("reference", paths.TEMPLATE_DIR.name, "buggy")}


def test_the_reference_earns_every_point(graded):
    for exercise_id in BUGS:
        result = graded["reference"][exercise_id]
        assert result["score"] == result["max_score"] > 0, (exercise_id, result["feedback"])


def test_the_template_earns_nothing(graded):
    for exercise_id in BUGS:
        assert graded[paths.TEMPLATE_DIR.name][exercise_id]["score"] == 0, exercise_id


def test_each_bug_loses_points_and_is_named(graded):
    for exercise_id, (_, misconception, fragment) in BUGS.items():
        result = graded["buggy"][exercise_id]
        assert result["score"] < result["max_score"], exercise_id
        assert misconception in result["diagnoses"], (exercise_id, result["diagnoses"])
        assert fragment in result["feedback"], (exercise_id, result["feedback"])
