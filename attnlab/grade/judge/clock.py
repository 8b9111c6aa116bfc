"""How long an exercise may take: the runner's CPU seconds decide; the wall clock is only a backstop.

A busy machine (Gradescope's shared hosts, a cluster node, two other jobs on a laptop) stretches wall time
but not the CPU time a submission needs, so the limit that can cost a student points counts the runner's
CPU time (the runner and the processes it started). The wall time the judge spends waiting for the runner
is bounded too, by `backstop`, so a submission that sleeps or waits forever still ends. When only the
backstop runs out, the verdict says whose time it was: a runner that was mostly waiting for a CPU (its
scheduler run-queue delay, /proc/PID/schedstat) was starved by the machine (Status.OVERLOADED, never the
student's timeout); one that was neither computing nor waiting for a CPU was idle by its own doing
(Status.TIMEOUT). The judge's own work between calls (expected values, comparisons) counts for neither.
"""

import os
import threading
from dataclasses import dataclass

from attnlab.core.outcomes import Outcome
from attnlab.core.time_budget import TimeBudget
from attnlab.grade.sandbox import procs
from attnlab.grade.sandbox.pipes import Expired

TICK_S = 1.0 / os.sysconf("SC_CLK_TCK")
CHECK_EVERY_S = 0.05  # of waiting: how often the runner's CPU time is read while the judge waits
TREE_EVERY = 10  # every this many checks, its live descendants' too (a fork bomb's CPU is in its children)
STARVED_SHARE = 0.5  # of the time neither computing nor running: waiting for a CPU this much is the machine


@dataclass(frozen=True)
class Usage:
    cpu_s: float = 0.0  # user + system time, reaped children included
    delay_s: float = 0.0  # time runnable but waiting for a CPU

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(self.cpu_s + other.cpu_s, self.delay_s + other.delay_s)

    def __sub__(self, other: "Usage") -> "Usage":
        return Usage(self.cpu_s - other.cpu_s, self.delay_s - other.delay_s)


def usage(pid: int, *, delay: bool = True) -> Usage | None:
    """A process's CPU time and run-queue delay (all its threads), or None once it is gone. Without `delay`,
    the CPU time only (delay_s 0): one read instead of one per thread, for the checks made at every request."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        cpu = sum(int(fields[i]) for i in (11, 12, 13, 14)) * TICK_S  # utime stime cutime cstime
        waited = 0
        for task in os.listdir(f"/proc/{pid}/task") if delay else ():
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                waited += int(f.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return Usage(cpu, waited / 1e9)


def tree_usage(pid: int) -> Usage:
    """usage(pid) plus its live descendants' (children not reaped yet count only here)."""
    children = _children_reader()
    total, stack = Usage(), [pid]
    while stack:
        current = stack.pop()
        total = total + (usage(current) or Usage())
        stack += children(current)
    return total


def _children_reader():
    """pid -> its children's pids: from /proc/PID/task/TID/children (the process's own entries), or, where the
    kernel lacks them, from a snapshot of every process on the machine (one read of each)."""
    if os.path.exists(f"/proc/self/task/{threading.get_native_id()}/children"):
        return _children
    table = procs.snapshot()
    return lambda pid: [p.pid for p in table.values() if p.ppid == pid]


def _children(pid: int) -> list[int]:
    found = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                found += [int(child) for child in f.read().split()]
    except (OSError, ValueError):
        pass  # gone meanwhile: what was read still counts
    return found


def thread_delay() -> float:
    """The calling thread's run-queue delay so far (the judge waits for CPUs on a busy machine too)."""
    try:
        with open(f"/proc/self/task/{threading.get_native_id()}/schedstat") as f:
            return int(f.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


class RunnerClock(TimeBudget):
    """One exercise's time in grading, read from /proc: `cpu_s` of the runners' CPU time and `wall_s` of the
    judge waiting for them. (Checks run in the student's own process use attnlab.student.timer.InProcessClock.)"""

    def __init__(self, cpu_s: float, wall_s: float):
        super().__init__(cpu_s, wall_s)
        self.waited = 0.0
        self._gone = Usage()  # what runners that ended during this exercise used
        self._pid: int | None = None
        self._base = Usage()
        self._checked_at = 0.0
        self._checks = 0
        self._expired = False
        self._judge_delay = thread_delay()

    def attach(self, pid: int | None) -> None:
        """Count the runner `pid` from now on (a new one after a restart)."""
        self.detach()
        self._pid = pid
        self._base = (usage(pid) or Usage()) if pid is not None else Usage()

    def detach(self) -> None:
        """Stop counting the current runner, keeping what it and its processes used (call before the kill)."""
        if self._pid is not None:
            self._gone = self.used(tree=True)
            self._pid = None

    def stop(self) -> None:
        """Stop counting, without reading what was used (the budget is over and its result known)."""
        self._pid = None

    def _current(self, delay: bool) -> Usage:
        if self._pid is None:
            return Usage()
        now = usage(self._pid, delay=delay)
        return (now - self._base) if now is not None else Usage()

    def used(self, *, tree: bool = False, delay: bool = True) -> Usage:
        """What the runners used so far; with `tree`, the current one's live descendants included; without
        `delay`, the CPU time only (its delay_s is then meaningless)."""
        if tree and self._pid is not None:
            return self._gone + (tree_usage(self._pid) - self._base)
        return self._gone + self._current(delay)

    def exhausted(self) -> bool:
        return self._expired or self.waited >= self.wall_s or self.used(delay=False).cpu_s >= self.cpu_s

    def next_wait(self) -> float:
        """How long the judge may wait now (the runner's CPU time is read every CHECK_EVERY_S of waiting);
        raises Expired when either limit is reached, and from then on."""
        if self._expired or self.waited >= self.wall_s:
            self._expired = True
            raise Expired()
        if self.waited - self._checked_at >= CHECK_EVERY_S:
            self._checked_at = self.waited
            self._checks += 1
            if self.used(tree=self._checks % TREE_EVERY == 0, delay=False).cpu_s >= self.cpu_s:
                self._expired = True
                raise Expired()
        return min(CHECK_EVERY_S, self.wall_s - self.waited)

    def waited_for(self, seconds: float) -> None:
        self.waited += seconds

    def verdict(self, exercise: str, *, importing: bool = False) -> Outcome:
        """Why the time ran out: the submission's CPU time, its own idling, or the machine."""
        used = self.used(tree=True)
        if used.cpu_s >= self.cpu_s:
            return self.out_of_cpu(exercise, importing=importing)
        idle = max(self.waited - used.cpu_s, 1e-9)
        starved = used.delay_s + (thread_delay() - self._judge_delay)
        return self.out_of_wall(exercise, used.cpu_s, overloaded=starved >= STARVED_SHARE * idle, importing=importing)

