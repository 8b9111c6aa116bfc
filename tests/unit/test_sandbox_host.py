"""What grade.py arranges on the host around a run (sandbox/runs.py, modes.py, host.py, landlock.py, the levels),
tested for real with short-lived processes standing in for runs that die: a dead run's scratch directories,
uid leases and mode changes are swept, a live run's never; --budget's per-exercise limit; the seed blanked
in /proc; Landlock; and the level each simulated machine (tests/simulations.py) gets."""

import os
import signal
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
import simulations

from attnlab.core.config import Limits
from attnlab.grade.batch.cli import budget_timeout
from attnlab.grade.sandbox import host, modes, procs, runs
from attnlab.grade.sandbox.scratch import remove_tree

ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="leasing uids and running code as them needs root")


def in_other_run(code: str) -> tuple[subprocess.Popen, list[str]]:
    """A process standing for another grade.py run: it runs `code` (with runs, modes, Path imported), then
    waits to be killed; and the lines `code` printed."""
    script = "from pathlib import Path\nfrom attnlab.grade.sandbox import modes, runs\n" + textwrap.dedent(code) + \
             "\nprint('ready', flush=True)\nimport time\ntime.sleep(600)\n"
    other = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    said = []
    while (line := other.stdout.readline().strip()) != "ready":
        assert line, "the other run died"
        said.append(line)
    return other, said


def killed(process: subprocess.Popen) -> None:
    process.kill()
    process.wait()


def test_budget_timeout_fits_every_exercise_backstop_into_the_budget():
    limits = Limits()
    timeout = budget_timeout(1080, 12, limits)
    assert timeout == pytest.approx((960 / 12 - 10) / 3)
    assert 12 * limits.backstop(timeout) + 120 == pytest.approx(1080)
    assert budget_timeout(10, 12, limits) == 1.0 and budget_timeout(10**6, 12, limits) == 60.0


def test_a_dead_runs_scratch_dir_is_swept_and_a_live_runs_is_not(tmp_path):
    base = Path(tempfile.gettempdir())
    other, _ = in_other_run(f"""
        d = Path({str(base)!r}) / "attnlab-unit-dead-{tmp_path.name}"
        d.mkdir()
        runs.mark(d)
    """)
    dead = base / f"attnlab-unit-dead-{tmp_path.name}"
    live, unmarked = base / f"attnlab-unit-live-{tmp_path.name}", base / f"attnlab-unit-unmarked-{tmp_path.name}"
    live.mkdir()
    unmarked.mkdir()
    runs.mark(live)
    try:
        runs.sweep()
        assert dead.exists()  # its run is still alive
        killed(other)
        runs.sweep()
        assert not dead.exists() and live.exists() and unmarked.exists()
    finally:
        for d in (live, unmarked, dead):
            remove_tree(d)


RACING_RUN = """
import sys, tempfile
from pathlib import Path
from attnlab.grade.sandbox import runs
lost = 0
for _ in range(20):
    runs.sweep()
    made = Path(tempfile.mkdtemp(prefix=sys.argv[1]))
    try:
        runs.mark(made)
    except FileNotFoundError:  # swept before it was even marked
        lost += 1
        continue
    runs.sweep()
    lost += not made.exists()
print(lost)
"""


@pytest.mark.slow  # 20 fresh interpreters: 2 s
def test_a_live_runs_scratch_dirs_survive_runs_that_start_and_sweep_meanwhile(tmp_path):
    """Runs starting together (grade.py under several simulations, Slurm shards on one node) each sweep while
    the others are making their run lock and marking their scratch dirs: neither a marker read half-written nor
    a lock file seen between its creation and its locking may make a live run look gone. Four at a time, 20
    fresh runs in all, each marking 20 dirs; before the fix about 1 dir in 90 was swept from under its run."""
    prefix = f"attnlab-unit-race-{tmp_path.name}-"
    shared = os.stat(tempfile.gettempdir()).st_mode  # two sweeps removing one dir once made /tmp 0700
    lost = 0
    try:
        for _ in range(5):
            racing = [subprocess.Popen([sys.executable, "-c", RACING_RUN, prefix], stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, text=True) for _ in range(4)]
            for run in racing:
                out, err = run.communicate(timeout=60)
                assert run.returncode == 0, err
                lost += int(out)
    finally:
        for made in Path(tempfile.gettempdir()).glob(f"{prefix}*"):
            remove_tree(made)
    assert lost == 0 and os.stat(tempfile.gettempdir()).st_mode == shared


UNREADABLE_TREE = """
import sys
from pathlib import Path
from attnlab.grade.sandbox.scratch import remove_tree
top = Path(sys.argv[1]) / "scratch"
(top / "pkg" / "hidden").mkdir(parents=True)
(top / "pkg" / "hidden" / "a.py").write_text("x")
(top / "pkg" / "b.py").write_text("y")
(top / "pkg" / "hidden").chmod(0)
(top / "pkg").chmod(0o300)  # writable, not listable
top.chmod(0)
parent = top.parent.stat().st_mode
remove_tree(top)
print(top.exists(), top.parent.stat().st_mode == parent)  # nothing above the tree changed
"""


def test_remove_tree_goes_through_dirs_a_submission_made_unreadable(tmp_path):
    """A judge that is not root removes a scratch dir whose submission made its dirs unreadable. Simulated as
    root without the capabilities that let root ignore permissions (it stays the owner, so it may chmod)."""
    as_user = simulations.without("cap_dac_override", "cap_dac_read_search", simulating="a judge that is not root") \
        if os.geteuid() == 0 else []
    done = subprocess.run([*as_user, sys.executable, "-c", UNREADABLE_TREE, str(tmp_path)], capture_output=True,
                          text=True, cwd=Path(__file__).parents[2], timeout=60)
    assert done.returncode == 0 and done.stdout.split() == ["False", "True"], done.stderr


def test_modes_are_put_back_by_the_last_run_that_needed_them_or_by_the_sweep(tmp_path):
    secret, way = tmp_path / "secret", tmp_path / "closed" / "open"
    secret.mkdir(mode=0o755)
    way.mkdir(parents=True)
    (tmp_path / "closed").chmod(0o700)
    other, _ = in_other_run(f"modes.hide([Path({str(secret)!r})])")
    assert stat.S_IMODE(secret.stat().st_mode) == 0o750
    modes.hide([secret])
    modes.reach([str(way)])
    assert stat.S_IMODE((tmp_path / "closed").stat().st_mode) == 0o701
    modes.release(runs.current())
    assert stat.S_IMODE(secret.stat().st_mode) == 0o750  # the other run still needs it
    assert stat.S_IMODE((tmp_path / "closed").stat().st_mode) == 0o700
    killed(other)
    host.sweep()
    assert stat.S_IMODE(secret.stat().st_mode) == 0o755


def test_a_mode_changed_by_someone_else_meanwhile_is_left_alone(tmp_path):
    secret = tmp_path / "secret"
    secret.mkdir(mode=0o755)
    modes.hide([secret])
    secret.chmod(0o711)
    modes.release(runs.current())
    assert stat.S_IMODE(secret.stat().st_mode) == 0o711


@ROOT_ONLY
def test_a_leased_uid_is_this_runs_alone_and_a_dead_runs_processes_die_with_its_lease():
    other, said = in_other_run("""
        import subprocess
        [uid] = runs.lease_uids(1)
        subprocess.Popen(["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "sleep", "600"],
                         start_new_session=True)
        print(uid)
    """)
    theirs = int(said[0])
    end = time.monotonic() + 10
    while not procs.processes_of(theirs) and time.monotonic() < end:
        time.sleep(0.05)
    assert theirs not in runs.lease_uids(2)
    killed(other)
    assert procs.processes_of(theirs)  # its runner outlived it
    runs.sweep()
    # the sweep kills it, or a run that leased the freed uid meanwhile does, and sweep then skips the uid: on
    # README's two workers test_kill_uid_leaves_no_process_of_the_uid can lease it right then, and its kill was
    # still under way when this looked (once, in clean-clone run 41; since run 62 this file's tests share one
    # worker, tests/xdist_groups.py)
    end = time.monotonic() + 10
    while procs.processes_of(theirs) and time.monotonic() < end:
        time.sleep(0.05)
    assert procs.processes_of(theirs) == []


def test_the_seed_is_blanked_in_the_command_line_others_can_read():
    code = ("import sys, time; from attnlab.grade.sandbox import host; host.hide_from_command_line('4242'); "
            "print('ready', flush=True); time.sleep(60)")
    child = subprocess.Popen([sys.executable, "-c", code, "--seed", "4242", "--other=4242", "x4242"],
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "ready"
        args = Path(f"/proc/{child.pid}/cmdline").read_bytes().split(b"\0")
    finally:
        killed(child)
    assert args[-4:] == [b"xxxx", b"--other=xxxx", b"x4242", b""]


def test_landlock_lets_a_process_open_only_what_its_rules_allow():
    from attnlab.grade.sandbox import landlock

    if landlock.abi() < 1:
        pytest.skip("this kernel has no Landlock")
    code = textwrap.dedent("""
        import ctypes, os
        from attnlab.grade.sandbox import landlock
        rules = landlock.ruleset([("/usr", landlock.READ), ("/proc", landlock.READ)])
        ctypes.CDLL(None).prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS
        landlock.enforce(rules)
        for path in ("/usr/bin/env", "/etc/hostname"):
            try:
                open(path, "rb").close()
                print(path, "ok")
            except OSError as exc:
                print(path, type(exc).__name__)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[:2] == ["/usr/bin/env ok", "/etc/hostname PermissionError"]


@pytest.mark.parametrize("name", simulations.NAMES)
def test_each_simulated_machine_gets_its_level(name):
    prefix = simulations.prefix(name)
    code = "from attnlab.grade.sandbox.levels import best_level; print(best_level())"
    out = subprocess.run([*prefix, sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == simulations.expected_level(name)


def test_kill_uid_leaves_no_process_of_the_uid():
    if os.geteuid() != 0:
        pytest.skip("running a process as another uid needs root")
    [uid] = runs.lease_uids(1)
    sleeper = subprocess.Popen(["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "sh", "-c",
                                "sleep 600 & sleep 600 & wait"], start_new_session=True)
    end = time.monotonic() + 10
    while len(procs.processes_of(uid)) < 3 and time.monotonic() < end:
        time.sleep(0.05)
    procs.kill_uid(uid)
    assert procs.processes_of(uid) == []
    assert sleeper.wait(timeout=10) == -signal.SIGKILL
