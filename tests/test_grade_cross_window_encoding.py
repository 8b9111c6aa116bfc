"""grade.py --assignment modern on sinusoidal_positional_encoding, cross_attention and sliding_window_attention,
through the sandboxed runner: the reference earns every point, the untouched template none, and a package
with one known bug per exercise loses points with the misconception named in its feedback. The class also
holds issue 22's encoding with no columns for d_model = 1, graded first: it once stopped grade.py (exit 1,
nobody after it graded); now its laws fail with the shape they expected and the class is graded to the end."""

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
    odd = work / "a_odd_widths"  # graded first: every submission not yet started once got no result
    shutil.copytree(paths.REFERENCE_DIR, odd, ignore=shutil.ignore_patterns("numpy", "jax", "mindspore",
                                                                            "misconceptions", "__pycache__"))
    encoding = odd / "sinusoidal_positional_encoding.py"
    encoding.write_text(encoding.read_text(encoding="utf-8").replace(  # d_model // 2 pairs: d_model = 1 has none
        "torch.arange(0, d_model, 2,", "torch.arange(0, 2 * (d_model // 2), 2,").replace(
        "pairs.flatten(-2)[..., :d_model]", "pairs.flatten(-2)"), encoding="utf-8")
    out = work / "out"
    proc = subprocess.run([sys.executable, str(paths.ROOT / "grade.py"), odd, paths.REFERENCE_DIR, paths.TEMPLATE_DIR,
                           buggy, "--assignment", "modern", "--out", out, "--seed", "11", "--jobs", "2"],
                          capture_output=True, text=True, timeout=900, cwd=paths.ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    results = {name: {e["id"]: e for e in json.loads((out / f"{name}.json").read_text())["exercises"]}
               for name in (odd.name, "reference", paths.TEMPLATE_DIR.name, "buggy")}
    return {**results, "stderr": proc.stderr, "summary": (out / "summary.csv").read_text(encoding="utf-8-sig")}


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


def test_an_encoding_without_columns_fails_its_laws_and_stops_nobody(graded):
    """Issue 22: the law pe_sine_then_cosine indexed column 0 of a (3, 0) output and grade.py died."""
    result = graded["a_odd_widths"]["sinusoidal_positional_encoding"]
    checks = {c["name"]: c for c in result["checks"]}
    assert checks["sine_then_cosine"]["status"] == "failed", result["feedback"]
    assert "expected Float32 (*batch d_model) with" in result["feedback"] and "d_model=1" in result["feedback"]
    assert not any(c["status"] == "internal_error" for e in graded["a_odd_widths"].values() for c in e["checks"])
    assert "internal error" not in graded["stderr"]
    assert checks["positions_0_to_7_default_base"]["passed"] and 0 < result["score"] < result["max_score"]
    others = [e for i, e in graded["a_odd_widths"].items() if i != "sinusoidal_positional_encoding"]
    assert all(e["score"] == e["max_score"] for e in others), [e["id"] for e in others if e["score"] < e["max_score"]]
    lines = graded["summary"].splitlines()[1:]
    assert sorted(line.split(",")[0] for line in lines) == sorted(["a_odd_widths", "buggy", "reference",
                                                                   paths.TEMPLATE_DIR.name])
