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


def fake_cgroup(tmp_path: Path, membership: str, files: dict[str, str]) -> tuple[Path, Path]:
    """A /proc/self/cgroup holding `membership`, and a /sys/fs/cgroup holding `files` (path -> text)."""
    proc, mounts = tmp_path / "cgroup", tmp_path / "sys-fs-cgroup"
    proc.write_text(membership)
    for name, text in files.items():
        (mounts / name).parent.mkdir(parents=True, exist_ok=True)
        (mounts / name).write_text(text)
    return proc, mounts


@pytest.mark.parametrize("membership, files, quota", [
    # cgroup v2: the process's own limit, and a smaller one above it, which holds too
    ("0::/grading/job\n", {"grading/job/cpu.max": "150000 100000\n", "grading/cpu.max": "max 100000\n"}, 1.5),
    ("0::/grading/job\n", {"grading/job/cpu.max": "max 100000\n", "grading/cpu.max": "100000 100000\n"}, 1.0),
    ("0::/\n", {"cpu.max": "max 100000\n"}, None),
    # v1, as Docker mounts it: the container's own cgroup is the mount's root, whatever /proc names
    ("4:cpu,cpuacct:/docker/0123abcd\n1:memory:/docker/0123abcd\n",
     {"cpu,cpuacct/cpu.cfs_quota_us": "200000\n", "cpu,cpuacct/cpu.cfs_period_us": "100000\n"}, 2.0),
    ("1:cpu:/\n", {"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"}, None),
    ("0::/\n", {}, None),  # nothing mounted
])
def test_the_cgroup_cpu_quota_is_read_where_it_is_set(tmp_path, membership, files, quota):
    from attnlab.core.cpus import cgroup_cpu_quota

    assert cgroup_cpu_quota(*fake_cgroup(tmp_path, membership, files)) == quota


def usable_cpus_in(preexec) -> int:
    code = "from attnlab.core.cpus import usable_cpus; print(usable_cpus())"
    return int(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              preexec_fn=preexec).stdout)


def test_jobs_default_to_the_cpus_this_process_may_run_on():
    """--jobs's default was os.cpu_count(): the host's CPUs, not the ones a Slurm job or taskset allows."""
    assert usable_cpus_in(None) == len(CPUS)
    assert usable_cpus_in(lambda: os.sched_setaffinity(0, CPUS[:1])) == 1


@pytest.fixture
def cpu_cgroup_of_one_cpu():
    """A real cgroup whose CPU quota is one CPU (v1's cpu controller, or v2's cpu.max), removed afterwards."""
    if os.geteuid() != 0:
        pytest.skip("making a cgroup needs root")
    name = f"attnlab-test-{os.getpid()}"
    v1, v2 = Path("/sys/fs/cgroup/cpu") / name, Path("/sys/fs/cgroup") / name
    for folder, limits in ((v1, {"cpu.cfs_period_us": "100000", "cpu.cfs_quota_us": "100000"}),
                           (v2, {"cpu.max": "100000 100000"})):
        try:
            folder.mkdir()
        except OSError:
            continue
        try:
            for file, value in limits.items():
                (folder / file).write_text(value)
        except OSError:
            folder.rmdir()
            continue
        yield folder
        folder.rmdir()
        return
    pytest.skip("no cgroup with a CPU quota can be made here (neither v1's cpu controller nor v2's cpu.max)")


def test_jobs_default_to_what_the_cgroups_cpu_quota_allows(cpu_cgroup_of_one_cpu):
    """A container given 2 of 32 cores (Docker's --cpus, a Kubernetes limit) graded 32 submissions at once."""
    if len(CPUS) < 2:
        pytest.skip("one CPU: the quota changes nothing")
    assert usable_cpus_in(lambda: (cpu_cgroup_of_one_cpu / "cgroup.procs").write_text("0")) == 1
    shown = subprocess.run([sys.executable, str(paths.ROOT / "grade.py"), "--help"], capture_output=True, text=True,
                           check=True, preexec_fn=lambda: (cpu_cgroup_of_one_cpu / "cgroup.procs").write_text("0"))
    assert "the CPUs this process may use, 1 here" in " ".join(shown.stdout.split())
