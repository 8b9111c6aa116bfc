"""Grades do not depend on the machine's load: the same class, graded idle and with every core busy,
gets identical results; a submission starved of CPU is reported as overloaded, never as its timeout."""

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from attnlab.core import frameworks, paths
from attnlab.core.config import Limits
from attnlab.core.outcomes import Overloaded
from attnlab.grade.judge.remote import RemoteImpl

pytestmark = pytest.mark.e2e  # starts runners, grade.py, browsers or pytest processes

# a correct dropout that prints ~1 MB and computes a little per call: about a CPU-second per exercise,
# and several wall-clock seconds when it has to share the cores
PROGRESS = ('    for step in range(200):  # progress report\n'
            '        print(f"dropout step {step}: " + "#" * 5000, sum(i * i for i in range(5000)))\n')


def slow_printer(root: Path) -> Path:
    package = shutil.copytree(paths.REFERENCE_DIR, root / "slow_printer",
                              ignore=shutil.ignore_patterns("misconceptions", "__pycache__"))
    source = (package / "attention.py").read_text(encoding="utf-8")
    marker = "    # BEGIN SOLUTION\n    if not 0.0 <= p <= 1.0:"
    assert marker in source
    (package / "attention.py").write_text(source.replace(marker, PROGRESS + marker), encoding="utf-8")
    return package


class BusyCores:
    """Three busy loops per core, each in its own session (so the scheduler's per-session groups cannot
    shield the runner from them, as other jobs on a shared machine do not)."""

    def __enter__(self):
        count = 3 * (os.cpu_count() or 1)
        self.procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
                      for _ in range(count)]
        time.sleep(1)
        return self

    def __exit__(self, *exc):
        for proc in self.procs:
            proc.kill()
            proc.wait()


def grade(submissions: list[Path], out: Path) -> dict:
    proc = subprocess.run([sys.executable, str(paths.ROOT / "grade.py"), *map(str, submissions), "--out", str(out),
                           "--seed", "3", "--timeout", "2", "--jobs", "2"], capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = {}
    for path in submissions:
        data = json.loads((out / f"{path.name}.json").read_text())
        results[path.name] = [(e["id"], e["score"], e["status"], e["feedback"]) for e in data["exercises"]]
    return results


def test_the_same_class_gets_the_same_results_idle_and_under_load(tmp_path):
    examples = paths.EXAMPLES_DIR
    submissions = [slow_printer(tmp_path), examples / "bob_buggy", examples / "alice_partial",
                   Path(__file__).parent / "acceptance" / "seed002_modules_data"]
    idle = grade(submissions, tmp_path / "idle")
    assert all(score == 6.0 for ex, score, *_ in idle["slow_printer"] if ex == "dropout")
    with BusyCores():
        loaded = grade(submissions, tmp_path / "loaded")
    assert loaded == idle


STARVED = """
import torch
def run_softmax(x):
    total = 0
    while True:  # computes flat out: on a starved machine it cannot use its CPU time within the wall clock
        total += 1
"""


def test_a_starved_runner_is_overloaded_not_timed_out(tmp_path):
    package = tmp_path / "starved"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "softmax.py").write_text(STARVED)
    (tmp_path / "scratch").mkdir()
    limits = Limits(timeout_s=30, wall_factor=1.0, wall_extra_s=0.0)  # backstop = the CPU budget, 2 s below
    scratch = tmp_path / "scratch"
    with RemoteImpl(package, name="starved", adapter=frameworks.default(), limits=limits, hidden_paths=[],
                    scratch_root=scratch) as remote:
        remote.start()
        with BusyCores(), remote.budget(2.0):
            [got] = remote.call_many(exercise="softmax", module="softmax", function="run_softmax",
                                     calls=[{"x": torch.ones(2)}], forbidden_calls=())
    assert isinstance(got, Overloaded), str(got)
    assert "waiting for a CPU" in str(got) and "not your code's doing" in str(got)
