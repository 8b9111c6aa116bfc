"""MindSpore courses are tested where MindSpore lives: .venv-mindspore (scripts/venv-mindspore; NumPy 1.x, which
MindSpore 2.10 is built against and the main venv's jax cannot have). From README's single test command this
runs every MindSpore test there (every test whose id names mindspore: its reference and template in
tests/test_frameworks.py, its mutations, forbidden calls, seed 001's tensors, grade.py on examples/mindspore,
the handout in a fresh venv) and fails if any fails or is skipped. Without .venv-mindspore it is skipped,
saying how to make it.
"""

import os
import re
import subprocess
import sys
from types import SimpleNamespace

import mindspore_venv
import pytest

from attnlab.core import frameworks, paths


@pytest.mark.parametrize("framework", ["numpy", "jax", "mindspore"])
def test_every_reference_answers_the_quizzes_as_the_course_does(framework):
    """reference/<framework>/ holds copies of reference/quiz.yaml, modern_quiz.yaml and systems_quiz.yaml (a
    submission may hold no symlink), so that grading a framework's reference gives full marks."""
    for quiz in ("quiz.yaml", "modern_quiz.yaml", "systems_quiz.yaml"):
        ours = (paths.reference_dir(frameworks.adapter(framework)) / quiz).read_text(encoding="utf-8")
        assert ours == (paths.REFERENCE_DIR / quiz).read_text(encoding="utf-8"), f"reference/{framework}/{quiz}"


@pytest.mark.e2e
@pytest.mark.skipif(mindspore_venv.skipped_why() is not None, reason=str(mindspore_venv.skipped_why()))
def test_the_mindspore_tests_pass_in_venv_mindspore(tmp_path):
    # started with the tier's first test where the tier runs in one process (tests/mindspore_venv.py)
    proc = mindspore_venv.take(tmp_path / "inner").result()
    summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr[-2000:]
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    passed = re.search(r"(\d+) passed", summary)
    assert passed and int(passed.group(1)) >= 100, summary
    # MindSpore is there: nothing may skip for want of it. JAX is not (it needs NumPy 2): a JAX test module
    # skipped at collection is reported even though -k deselects everything in it
    skips = re.findall(r"^SKIPPED \[\d+\] (.*)$", proc.stdout, re.MULTILINE)
    assert all("could not import 'jax'" in reason for reason in skips), proc.stdout[-4000:]


def test_the_early_run_gets_a_cpu_only_when_no_other_process_wants_one():
    """What tests/mindspore_venv.py starts early runs in the idle class, and so does everything it starts."""
    code = "import os, subprocess, sys; print(os.sched_getscheduler(0), subprocess.check_output([sys.executable, " \
           "'-c', 'import os; print(os.sched_getscheduler(0))'], text=True).strip())"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          preexec_fn=mindspore_venv._idle_class)
    assert done.stdout.split() == [str(os.SCHED_IDLE)] * 2


def test_the_venv_test_is_moved_to_the_end_and_the_rest_keep_their_order():
    items = [SimpleNamespace(nodeid=n) for n in ("a", mindspore_venv.NODE, "b", "c")]
    mindspore_venv.put_last(items)
    assert [i.nodeid for i in items] == ["a", "b", "c", mindspore_venv.NODE]
