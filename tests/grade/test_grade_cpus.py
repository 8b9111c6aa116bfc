"""Runs side by side: grade.py pins each worker (its judge thread and its runners) to a CPU of its own, and
leases that CPU (sandbox/runs.py), so that another run started beside it (a Slurm shard on a node that does
not bind CPUs, a second assignment) pins its workers elsewhere instead of onto the same first CPU.

Each test keeps its leases in a private TMPDIR (the state directory lives there), so a grade.py run of another
test, or of the MindSpore venv's run beside the e2e tier, never holds the CPUs it counts on."""

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from attnlab.core import frameworks, paths

CPUS = sorted(os.sched_getaffinity(0))
FAKE = [1000, 1001, 1002]  # CPU numbers no real run leases: only the locks are tested


def other_run(code: str, tmpdir: Path) -> tuple[subprocess.Popen, str]:
    """A process standing for another grade.py run, with TMPDIR `tmpdir`: it runs `code` (runs imported), prints
    its last line, and holds what it leased until killed."""
    script = "from attnlab.grade.sandbox import runs\n" + textwrap.dedent(code) + \
             "\nimport sys, time\nsys.stdout.flush()\ntime.sleep(600)\n"
    other = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "TMPDIR": str(tmpdir)})
    line = other.stdout.readline().strip()
    assert line, "the other run died"
    return other, line


def stop(process: subprocess.Popen) -> None:
    process.kill()
    process.wait()


@pytest.fixture
def private_tmp(tmp_path):
    private = tmp_path / "tmp"
    private.mkdir(mode=0o700)
    return private


def test_runs_side_by_side_lease_different_cpus_and_a_dead_runs_are_free_again(private_tmp):
    first, said_first = other_run(f"print(runs.lease_cpus({FAKE}, 1))", private_tmp)
    second, said_second = other_run(f"print(runs.lease_cpus({FAKE}, 3), runs.lease_cpus({FAKE}, 1))", private_tmp)
    try:
        assert said_first == "[1000]"
        assert said_second == "[1001, 1002] [1001]"  # what it holds already first: the same CPUs on every call
        third, said_third = other_run(f"print(runs.lease_cpus({FAKE}, 2))", private_tmp)
        stop(third)
        assert said_third == "[]"  # every CPU is held: its workers are not pinned
        stop(first)  # the kernel drops its locks with it
        fourth, said_fourth = other_run(f"print(runs.lease_cpus({FAKE}, 2))", private_tmp)
        stop(fourth)
        assert said_fourth == "[1000]"
    finally:
        stop(first), stop(second)


@pytest.mark.e2e  # grade.py
def test_grade_py_pins_its_worker_to_a_cpu_no_other_run_holds(private_tmp, tmp_path):
    if len(CPUS) < 2:
        pytest.skip("one CPU: there is no other to pin to")
    probe = paths.copy_template(tmp_path / "probe", frameworks.default())
    softmax = probe / "softmax.py"  # the runner says where it runs, in the failure grade.py reports
    softmax.write_text(softmax.read_text(encoding="utf-8").replace(
        'raise NotImplementedError("exercise softmax: implement run_softmax")',
        'import os\n    raise ValueError(f"runner on CPUs {sorted(os.sched_getaffinity(0))}")'), encoding="utf-8")
    holder, said = other_run(f"print(runs.lease_cpus({CPUS[:1]}, 1))", private_tmp)
    try:
        assert said == str(CPUS[:1])
        done = subprocess.run([sys.executable, str(paths.ROOT / "grade.py"), str(probe), "--out", str(tmp_path / "out"),
                               "--seed", "5", "--jobs", "1"], capture_output=True, text=True, timeout=300,
                              env={**os.environ, "TMPDIR": str(private_tmp)})
    finally:
        stop(holder)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"workers pinned to CPU {CPUS[1]})" in done.stderr.splitlines()[0]
    result = json.loads((tmp_path / "out" / "probe.json").read_text())
    [softmax_result] = [e for e in result["exercises"] if e["id"] == "softmax"]
    assert set(re.findall(r"runner on CPUs (\[[0-9, ]+\])", softmax_result["feedback"])) == {str([CPUS[1]])}
