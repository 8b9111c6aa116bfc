"""Correct code gets full marks: solutions written the way each seed teaches (modules with loaded weights,
nanoGPT's fused projection, einops/einx, loops in float64; tests/acceptance/README.md) graded through
grade.py, exactly as instructors grade."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from attnlab.core import frameworks, paths
from attnlab.core.config import Limits
from attnlab.core.spec_load import load_course
from attnlab.grade.judge.remote import RemoteImpl

pytestmark = pytest.mark.e2e  # starts runners, grade.py, browsers or pytest processes

ACCEPTANCE = Path(__file__).parent / "acceptance"
PACKAGES = sorted(p for p in ACCEPTANCE.iterdir() if (p / "__init__.py").is_file())
COURSE = load_course(paths.SPEC_DIR)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    out = tmp_path_factory.mktemp("acceptance")
    proc = subprocess.run([sys.executable, str(paths.ROOT / "grade.py"), *map(str, PACKAGES), "--out", str(out),
                           "--seed", "7", "--jobs", "2"], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {p.name: json.loads((out / f"{p.name}.json").read_text()) for p in PACKAGES}


def test_there_is_a_package_for_every_style_the_notes_teach():
    assert {p.name for p in PACKAGES} == {"seed002_modules_data", "seed002_modules_state_dict", "seed000_nanogpt",
                                          "seed003_modules", "seed004_einops", "loops_float64"}


@pytest.mark.parametrize("package", [p.name for p in PACKAGES])
def test_every_exercise_gets_full_marks(graded, package):
    lost = {e["id"]: (e["score"], e["max_score"], e["status"], e["feedback"][:400])
            for e in graded[package]["exercises"] if e["function"] is not None and e["score"] != e["max_score"]}
    assert lost == {}


def test_without_einops_in_the_course_the_einops_package_gets_one_plain_message(tmp_path):
    """Graded by a course whose `libraries:` lists neither einops nor einx: its modules that import them
    fail with the message naming the package, not a traceback."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    with RemoteImpl(ACCEPTANCE / "seed004_einops", name="einops", adapter=frameworks.default(),
                    limits=Limits(timeout_s=30), hidden_paths=[],
                    scratch_root=scratch, libraries=()) as remote:
        [got] = remote.call_many(exercise="multihead_self_attention", module="multihead",
                                 function="run_multihead_self_attention", calls=[{}], forbidden_calls=())
    assert re.search(r"your code imports (einops|einx) \(multihead\.py\), which is not available", str(got))
    assert "Traceback" not in str(got)
