"""The runner forkserver: runners forked from one warm server keep the sandbox of a fresh interpreter,
the server outlives their crashes and never leaks its socket, memory or zombies to them, kills leave
nothing, and the judge's exit takes the server and its runners with it."""

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
import torch

from attnlab.core import frameworks
from attnlab.core.config import Limits
from attnlab.core.outcomes import ForbiddenCall, SubmissionError
from attnlab.grade.protocol.channel import decode_tensors, read_frame, write_frame
from attnlab.grade.sandbox import forkserver, pipes, procs
from attnlab.grade.sandbox.launch import ForkedRunner, RunnerProcess, runner_server
from attnlab.grade.sandbox.levels import Isolation
from attnlab.grade.sandbox.scratch import copy_submission

pytestmark = pytest.mark.e2e  # starts runners, grade.py, browsers or pytest processes

REPO = Path(__file__).resolve().parents[2]
FAST = Limits(timeout_s=3.0, import_timeout_s=3.0, memory_mb=2048, max_processes=32)  # as conftest.py

PROBE = """
import os, sys, time, torch

def run_fds(x):
    links = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            links.append(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            pass  # the directory listing's own fd, closed by now
    return torch.tensor([len(links), sum(link.startswith("socket:") for link in links)])

def run_state(x):
    server = int(x.item())
    return torch.tensor([os.getpid(), float(os.path.exists(f"/proc/{server}")), float("reference" in sys.modules),
                         torch.get_num_threads()])

def run_wired(x):
    return torch.tensor(sorted(sys.modules["attnlab.core.tripwires"]._wired) == ["_log_softmax", "_softmax"])

def run_log_softmax(x):
    return torch.log_softmax(x, dim=-1)

def run_sleep(x):
    time.sleep(1000)

def run_crash(x):
    import ctypes
    return ctypes.string_at(0)
"""


def call(impl, function, x=None):
    [got] = impl.call_many(exercise="probe", module="probe", function=function,
                           calls=[{"x": torch.zeros(1) if x is None else x}], forbidden_calls=())
    if isinstance(got, Exception):
        raise got
    return got.output


@pytest.fixture
def probe(make_submission):
    return make_submission({"probe.py": PROBE})


def server_pid() -> int:
    return runner_server(FAST, "torch").ready()["pid"]


def test_the_server_is_single_threaded_and_forks_runners(probe, remote):
    package, _ = probe
    impl = remote(package)
    impl.start()
    assert isinstance(impl._runner, ForkedRunner)
    assert runner_server(FAST, "torch").ready()["threads"] == 1  # fork copies one thread: no pool can be half-copied
    assert len(os.listdir(f"/proc/{server_pid()}/task")) == 1  # still, after forking runners


@pytest.mark.parametrize("isolation", ["auto", "rlimits-only"])
def test_a_runner_holds_only_its_own_fds(probe, remote, isolation):
    package, _ = probe
    impl = remote(package, Limits(timeout_s=3.0, isolation=isolation))
    # stdin, stdout, stderr, requests, replies; no socket (the server's, other runners' control sockets)
    assert call(impl, "run_fds").tolist() == [5, 0]


def test_a_runner_cannot_see_the_server_nor_inherit_the_reference(probe, remote):
    package, _ = probe
    impl = remote(package)
    pid, server_visible, reference, threads = call(impl, "run_state", torch.tensor([server_pid()])).tolist()
    assert (pid, server_visible, reference, threads) == (1, 0, 0, 1)


def test_the_server_survives_crashing_runners(probe, remote):
    package, _ = probe
    before = server_pid()
    for _ in range(3):
        with pytest.raises(SubmissionError, match="signal 11"):
            call(remote(package), "run_crash")
    assert call(remote(package), "run_fds").tolist() == [5, 0]
    assert server_pid() == before and procs.alive(before)


def zombies_of(parent: int) -> list[int]:
    return [p.pid for p in procs.snapshot().values() if p.ppid == parent and p.state == "Z"]


def test_killing_a_runner_leaves_no_process_and_no_zombie(probe, remote, leftovers):
    package, marker = probe
    impl = remote(package)
    impl.start()
    runner = impl._runner
    supervisor, init = runner.pid, runner.init_pid
    assert procs.alive(supervisor) and procs.alive(init) and leftovers(marker)
    impl.close()
    assert procs.read_stat(supervisor) is None and procs.read_stat(init) is None  # dead and reaped
    assert leftovers(marker) == [] and zombies_of(server_pid()) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="as an ordinary user a supervisor makes the namespaces")
def test_as_root_the_runner_is_forked_straight_into_its_pid_namespace(probe, remote):
    """One fork per runner: the server's child is the runner itself, pid 1 of its own pid namespace."""
    package, _ = probe
    impl = remote(package)
    pid_inside = int(call(impl, "run_state", torch.tensor(float(server_pid())))[0])
    assert impl._runner.pid == impl._runner.init_pid and pid_inside == 1
    assert procs.read_stat(impl._runner.pid).ppid == server_pid()


def test_runners_start_with_the_tripwires_the_judge_names(probe, remote):
    """The forkserver wires the banned operators a spawn names before it forks (Server.prewire): the runner
    has them from the start, a banned operator reached in C++ is still caught, and the server stays one
    thread."""
    package, _ = probe
    forkserver.shutdown()  # a new server: nothing wired in it yet
    impl = remote(package, tripwires=("_softmax", "_log_softmax"))
    assert call(impl, "run_wired").item()
    [got] = impl.call_many(exercise="probe", module="probe", function="run_log_softmax",
                           calls=[{"x": torch.zeros(2, 3)}], forbidden_calls=("aten._log_softmax",))
    assert isinstance(got, ForbiddenCall) and "aten._log_softmax" in str(got.text("en"))
    assert len(os.listdir(f"/proc/{server_pid()}/task")) == 1
    plain = remote(package)  # named by nobody: what a server wired stays wired for the runners after
    assert call(plain, "run_wired").item()


def test_concurrent_runners_share_one_server(make_submission, remote):
    packages = [make_submission({"probe.py": PROBE})[0] for _ in range(4)]
    impls = [remote(p) for p in packages]
    barrier, results, errors = threading.Barrier(len(impls)), {}, []

    def work(impl):
        try:
            barrier.wait()
            results[impl.name] = (call(impl, "run_fds").tolist(), impl._runner.pid)
        except Exception as exc:  # noqa: BLE001 -- reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(impl,)) for impl in impls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors
    assert [r[0] for r in results.values()] == [[5, 0]] * 4
    assert len({r[1] for r in results.values()}) == 4


def test_a_dead_server_is_replaced(probe, remote):
    package, _ = probe
    old = server_pid()
    os.kill(old, signal.SIGKILL)
    end = time.monotonic() + 10
    while procs.alive(old) and time.monotonic() < end:
        time.sleep(0.05)
    assert call(remote(package), "run_fds").tolist() == [5, 0]
    assert server_pid() != old


JUDGE = """
import sys, time, torch
from pathlib import Path
from attnlab.core import frameworks
from attnlab.grade.judge.remote import RemoteImpl
from attnlab.core.config import Limits
from attnlab.grade.sandbox.launch import runner_server
impl = RemoteImpl(Path(sys.argv[1]), name="p", adapter=frameworks.default(), limits=Limits(), hidden_paths=[],
                  scratch_root=Path(sys.argv[2]))
impl.start()
print(runner_server(Limits(), "torch").ready()["pid"], impl._runner.pid, impl._runner.init_pid, flush=True)
impl.call_many(exercise="probe", module="probe", function="run_sleep", calls=[{"x": torch.zeros(1)}],
               forbidden_calls=())
"""


def test_when_the_judge_dies_the_server_and_its_runners_go_too(probe, tmp_path):
    package, _ = probe
    scratch = tmp_path / "judge-scratch"
    scratch.mkdir()
    judge = subprocess.Popen([sys.executable, "-c", JUDGE, str(package), str(scratch)], cwd=REPO,
                             stdout=subprocess.PIPE, text=True)
    pids = [int(p) for p in judge.stdout.readline().split()]
    assert len(pids) == 3 and all(procs.alive(p) for p in pids)
    time.sleep(0.5)  # the runner is asleep in run_sleep: only the server can stop it now
    judge.kill()  # SIGKILL: no atexit, no close(); the server sees its socket close
    judge.wait()
    end = time.monotonic() + 10
    while any(procs.alive(p) for p in pids) and time.monotonic() < end:
        time.sleep(0.05)
    assert not [p for p in pids if procs.alive(p)]


def test_the_exec_launcher_remains_and_is_the_fallback(probe, remote, monkeypatch):
    package, _ = probe
    impl = remote(package, Limits(timeout_s=3.0, launcher="exec"))
    assert call(impl, "run_fds").tolist() == [5, 0] and isinstance(impl._runner, RunnerProcess)
    monkeypatch.setitem(forkserver._state, "broken", "pretend the forkserver cannot run here")
    impl = remote(package, Limits(timeout_s=3.0, launcher="auto"))
    impl.start()
    assert isinstance(impl._runner, RunnerProcess)
    with pytest.raises(forkserver.Unavailable, match="pretend"):
        remote(package, Limits(timeout_s=3.0, launcher="forkserver")).start()


USERNS = """
import os, torch
def run_ids():
    status = open("/proc/self/status").read()
    return torch.tensor([os.getpid(), float("CapEff:\\t0000000000000000" in status),
                         float("NoNewPrivs:\\t1" in status)])
"""


def test_the_user_namespace_path_jails_a_forked_runner(make_submission, tmp_path):
    """The level an ordinary user gets (root cannot be given it by isolation_level, but the code path is
    the same): a user namespace entered after the fork, pid 1, no capabilities, no_new_privs."""
    package, _ = make_submission({"ids.py": USERNS})
    scratch = tmp_path / "runner"
    scratch.mkdir()
    name = copy_submission(package, scratch, owner=None)
    runner = ForkedRunner(level=Isolation.USER_NAMESPACES, limits=FAST, adapter=frameworks.default(), scratch=scratch,
                          package=name, hidden=[], covered=[tmp_path])
    pipes.Drain(runner.output, pipes.OutputTail(4096))
    try:
        reader = pipes.DeadlineReader(runner.replies, pipes.Deadline(30))
        assert [read_frame(reader, max_payload=0)[0]["status"] for _ in range(2)] == ["started", "ready"]
        write_frame(pipes.DeadlineWriter(runner.requests, pipes.Deadline(30)),
                    {"exercise": "ids", "module": "ids", "function": "run_ids", "forbidden": [],
                     "calls": [{"op": "call", "args": {}}], "tensors": {}})
        reply, data = read_frame(reader, max_payload=1 << 20)
        assert decode_tensors(reply["tensors"], data)["output"].tolist() == [1.0, 1.0, 1.0]
    finally:
        runner.kill()
    assert runner.exit_code() == -signal.SIGKILL


def test_the_judge_does_not_import_torch_before_starting_the_server():
    """grade.py starts the server, then imports torch: the two imports overlap (see cli.main)."""
    code = textwrap.dedent("""
        import sys
        import attnlab.grade.batch.cli, attnlab.grade.sandbox.launch, attnlab.grade.sandbox.forkserver
        print("torch" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def grandchildren(pid: int) -> list[int]:
    table = procs.snapshot()
    children = {p.pid for p in table.values() if p.ppid == pid}
    return [p.pid for p in table.values() if p.ppid in children]


# a shell's background job ignores SIGINT, and Python keeps an inherited SIG_IGN: restore Ctrl-C
CTRL_C_ABLE = ("import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
               "sys.argv = sys.argv[1:]; runpy.run_path('grade.py', run_name='__main__')")
LOOPING = "def run_softmax(in_features, dim):\n    while True:\n        pass\n"


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_or_sigterm_stops_grade_py_and_its_runners_at_once(make_submission, tmp_path, sig):
    """Gradings under way fail at once (their runners die with the server) and write no result. SIGTERM
    (`docker stop`, a batch system's time limit), sent to grade.py alone, stops it the same way; its default
    action had ended grade.py without a word."""
    subs = [make_submission({"softmax.py": LOOPING})[0] for _ in range(2)]
    out = tmp_path / "out"
    argv = ["grade.py", *map(str, subs), "--out", str(out), "--jobs", "2", "--timeout", "60"]
    grade = subprocess.Popen([sys.executable, "-c", CTRL_C_ABLE, *argv], cwd=REPO, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
    end = time.monotonic() + 60
    while len(grandchildren(grade.pid)) < 2 and time.monotonic() < end:  # the server's two supervisors
        time.sleep(0.2)
    time.sleep(1)  # the runners are in their loops
    supervisors = grandchildren(grade.pid)
    if sig == signal.SIGINT:
        os.killpg(grade.pid, signal.SIGINT)  # as a terminal's Ctrl-C
    else:
        os.kill(grade.pid, signal.SIGTERM)
    started = time.monotonic()
    _, err = grade.communicate(timeout=60)
    said = "interrupted" if sig == signal.SIGINT else "terminated (SIGTERM)"
    assert grade.returncode == 128 + sig and f"grade.py: {said}; finished results are kept in" in err, err[-2000:]
    assert time.monotonic() - started < 10
    assert sorted(p.name for p in out.iterdir()) == ["grading-run.json"]
    assert supervisors and not [pid for pid in supervisors if running(pid)]


def running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


COMPILED = """
import torch


@torch.compile
def run_compiled(x):
    return x * 2 + float(torch.compiler.is_compiling())  # + 1 where dynamo traces it
"""


def test_a_torch_compile_function_runs_as_the_plain_function_in_a_runner(make_submission, remote):
    """Compiling in a runner (per shape, with a C++ toolchain whose precompiled header outgrew the file-size cap)
    failed a correct @torch.compile softmax's first case with "C++ compile error" (99.27 of 100, its hint blaming
    the maximum) and took 30 s; grading checks what the function computes, so it runs uncompiled."""
    package, _ = make_submission({"probe.py": COMPILED})
    impl = remote(package, Limits(timeout_s=30.0, import_timeout_s=10.0, memory_mb=4096, max_processes=32))
    assert call(impl, "run_compiled", torch.ones(3)).tolist() == [2.0, 2.0, 2.0]
