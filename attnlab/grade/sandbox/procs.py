"""Finding and killing a runner's processes from /proc, without cgroups.

With a pid namespace one SIGKILL to its init is enough (the kernel kills and reaps the rest before the
init's pidfd reports its exit). Without one, a runner's processes are those in its session or process
group, plus every descendant: the runner is a child subreaper, so even a double-forked `setsid` daemon
stays below it as long as the runner lives, which is why the runner is killed last. Where the runner runs as
a uid of its own on the host (levels.Isolation.host_uid), every process of that uid is killed as well.
"""

import os
import select
import signal
import time
from collections import defaultdict
from dataclasses import dataclass


@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    pgid: int
    sid: int
    state: str


def read_stat(pid: int) -> Proc | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    # the command name (field 2) may contain spaces and parentheses: fields start after the last ')'
    state, ppid, pgid, sid = stat[stat.rindex(")") + 2:].split()[:4]
    return Proc(pid, int(ppid), int(pgid), int(sid), state)


def snapshot() -> dict[int, Proc]:
    table = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (proc := read_stat(int(entry))) is not None:
            table[proc.pid] = proc
    return table


def alive(pid: int) -> bool:
    proc = read_stat(pid)
    return proc is not None and proc.state not in ("Z", "X")


def members(leader: int, table: dict[int, Proc]) -> set[int]:
    """Live processes in `leader`'s session or group, or below it in the process tree (leader excluded)."""
    children: dict[int, list[int]] = defaultdict(list)
    for proc in table.values():
        children[proc.ppid].append(proc.pid)
    found = {p.pid for p in table.values() if leader in (p.sid, p.pgid)}
    stack = [leader]
    while stack:
        for child in children[stack.pop()]:
            found.add(child)
            stack.append(child)
    found.discard(leader)
    return {pid for pid in found if table[pid].state not in ("Z", "X")}


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def kill_tree(leader: int, *, timeout_s: float = 10.0) -> None:
    """Kill every member of `leader`, then the leader itself. Repeatedly: a fork bomb keeps forking until
    each copy is hit."""
    end = time.monotonic() + timeout_s
    while (found := members(leader, snapshot())) and time.monotonic() < end:
        for pid in found:
            _kill(pid)
    _kill(leader)
    for pid in members(leader, snapshot()):  # orphans reparented while the leader died
        _kill(pid)
    if members(leader, snapshot()):
        raise RuntimeError(f"processes of runner {leader} survived SIGKILL for {timeout_s} s")


def kill_and_wait(pids: list[int], *, timeout_s: float = 10.0) -> None:
    """SIGKILL each pid through a pidfd (no pid-reuse race) and wait until each has exited."""
    fds = []
    for pid in pids:
        try:
            fds.append(os.pidfd_open(pid))
        except ProcessLookupError:
            continue
    try:
        kill_pidfds(fds, timeout_s=timeout_s)
    finally:
        for fd in fds:
            os.close(fd)


def kill_pidfds(fds: list[int], *, timeout_s: float = 10.0) -> None:
    """SIGKILL the process behind each pidfd and wait until each has exited. For the init of a pid
    namespace that means every process in the namespace is gone too."""
    for fd in fds:
        try:
            signal.pidfd_send_signal(fd, signal.SIGKILL)
        except ProcessLookupError:
            pass
    poller = select.poll()
    for fd in fds:
        poller.register(fd, select.POLLIN)
    end = time.monotonic() + timeout_s
    pending = set(fds)
    while pending and time.monotonic() < end:
        for fd, _ in poller.poll(max(1, int((end - time.monotonic()) * 1000))):
            pending.discard(fd)
            poller.unregister(fd)
    if pending:
        raise RuntimeError(f"runner processes (pidfds {sorted(pending)}) did not exit within {timeout_s} s "
                           "of SIGKILL")


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _uid_and_state(pid: int) -> tuple[int, str] | None:
    """The real uid and state letter of a process (its status file: /proc/PID itself belongs to root once a
    process changed its uid), or None once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            fields = dict(line.split(":", 1) for line in f if ":" in line)
        return int(fields["Uid"].split()[0]), fields["State"].split()[0]
    except (OSError, KeyError, ValueError, IndexError):
        return None


def processes_of(uid: int) -> list[int]:
    """Live processes (not zombies) whose real uid is `uid`."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (info := _uid_and_state(int(entry))) and info[0] == uid and info[1] not in "ZX":
            found.append(int(entry))
    return found


def kill_uid(uid: int, *, timeout_s: float = 10.0) -> None:
    """SIGKILL every process of `uid` until none is left (a fork bomb's copies are hit as they appear; the
    uid's RLIMIT_NPROC bounds how many there can be). Each is killed through a pidfd opened before its uid is
    checked again, so a pid reused by another process is never hit."""
    end = time.monotonic() + timeout_s
    while pids := processes_of(uid):
        for pid in pids:
            try:
                fd = os.pidfd_open(pid)
            except OSError:
                continue
            try:
                if (info := _uid_and_state(pid)) is not None and info[0] == uid:
                    signal.pidfd_send_signal(fd, signal.SIGKILL)
            except OSError:
                pass
            finally:
                os.close(fd)
        if time.monotonic() > end:
            raise RuntimeError(f"processes of runner uid {uid} survived SIGKILL for {timeout_s} s: {pids[:10]}")
        time.sleep(0.002)
