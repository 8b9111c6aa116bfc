"""Nothing left behind: a grade.py killed with SIGKILL, together with its runner forkserver (as an OOM kill or
a container being stopped would), leaves its scratch directory and, where runners run as a host uid, its
runner and the daemon that runner started; the next grade.py run removes all of them and puts back the file
modes the killed run changed (sandbox/host.py: sweep)."""

import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import simulations

from attnlab.core import paths
from attnlab.grade.sandbox import procs

pytestmark = pytest.mark.e2e  # starts runners, grade.py, browsers or pytest processes

SLOW = """
import os, time

def run_softmax(in_features, dim):
    if os.fork() == 0:  # a daemon in a session of its own, as tests/adversarial/setsid_daemon does
        os.setsid()
        if os.fork() == 0:
            time.sleep(600)
        os._exit(0)
    while True:
        pass
"""


def grade(prefix: list[str], package: Path, out: Path) -> list[str]:
    return [*prefix, sys.executable, str(paths.ROOT / "grade.py"), str(package), "--out", str(out), "--jobs", "1",
            "--timeout", "300"]


def forkserver_of(pid: int) -> int:
    for child in (p.pid for p in procs.snapshot().values() if p.ppid == pid):
        if b"serve_forever" in Path(f"/proc/{child}/cmdline").read_bytes():
            return child
    raise AssertionError(f"grade.py {pid} has no runner forkserver")


def wait_for(condition, timeout_s: float = 120) -> None:
    end = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.2)


@pytest.mark.parametrize("simulation", ["here", "docker-no-landlock"])
def test_the_next_run_removes_what_a_killed_run_left(simulation, make_submission, tmp_path):
    prefix = simulations.prefix(simulation)
    package, marker = make_submission({"softmax.py": SLOW})
    log = tmp_path / "first.log"
    watched = [paths.REFERENCE_DIR, paths.SPEC_DIR, tmp_path, *Path(sys.executable).resolve().parents]
    modes = {path: path.stat().st_mode for path in watched}

    def scratch() -> list[Path]:
        return list(Path(tempfile.gettempdir()).glob(f"attnlab-{marker}-*"))

    with open(log, "w") as stderr:
        first = subprocess.Popen(grade(prefix, package, tmp_path / "out1"), stderr=stderr, start_new_session=True)
    try:
        wait_for(lambda: re.search(r"runner uids (\d+)", log.read_text()))
        uid = int(re.search(r"runner uids (\d+)", log.read_text()).group(1))
        wait_for(lambda: scratch() and len(procs.processes_of(uid)) >= 2)  # the runner, spinning, and its daemon
        server = forkserver_of(first.pid)
    finally:
        first.kill()
    os.kill(server, signal.SIGKILL)
    first.wait()
    time.sleep(1)
    assert scratch()
    if simulation != "here":  # no pid namespace died with the server: its uid still runs the two
        assert len(procs.processes_of(uid)) >= 2

    second = subprocess.run(grade(prefix, paths.TEMPLATE_DIR, tmp_path / "out2"), capture_output=True, text=True,
                            timeout=300)
    assert second.returncode == 0, second.stderr[-2000:]
    assert f"isolation: {simulations.expected_level(simulation)}" in second.stderr
    assert scratch() == [] and procs.processes_of(uid) == []
    assert {path: oct(mode) for path, mode in modes.items() if path.stat().st_mode != mode} == {}
    assert (tmp_path / "out1").stat().st_mode & 0o005 == 0o005  # hidden from runners while the first run lived
