"""The exercise time limit for checks that run in this process (`attnlab check` and `status`, pytest, the
notebook's check()): the budget grade.py gives an exercise (attnlab.core.config.Limits), so an endless loop ends
here as it would when graded, as a "timeout" naming the limit, instead of hanging.

The budget is CPU time of this process while the student's code runs (ITIMER_PROF), shared by all the
exercise's calls, with a wall-clock backstop (ITIMER_REAL) for code that waits rather than computes. Between
calls both clocks are paused, so the harness's own work is not counted. When the budget is spent the call
running fails with TimeLimit, and so does every later call of the exercise, as in grading.

Python runs signal handlers in the main thread only: called from another thread, checks run unlimited.
"""

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from attnlab.core.config import Limits
from attnlab.core.outcomes import TimeLimit
from attnlab.core.time_budget import TimeBudget

REPEAT_S = 0.25  # once expired, the signal repeats: code that swallows one interruption gets another


class Expired(BaseException):
    """Raised into the student's code when the budget is spent. A BaseException, so that their own
    `except Exception:` cannot swallow it; TimedImpl turns it into the TimeLimit outcome."""


class InProcessClock(TimeBudget):
    """One exercise's budget in this process, measured by interval timers: `cpu_s` of CPU time, `wall_s` of
    wall-clock time, consumed while running(). (A grading runner's is attnlab.grade.judge.clock.RunnerClock.)"""

    def __init__(self, exercise: str, cpu_s: float, wall_s: float):
        super().__init__(cpu_s, wall_s)
        self.exercise = exercise
        self.cpu_left, self.wall_left = self.cpu_s, self.wall_s
        self.verdict: TimeLimit | None = None
        self._armed = False  # a signal still pending after the code returned must not raise elsewhere

    def _expire(self, signum, frame):
        if not self._armed:
            return
        if self.verdict is None:
            if signum == signal.SIGPROF:
                self.verdict = self.out_of_cpu(self.exercise)
            else:
                self.verdict = self.out_of_wall(self.exercise, self.cpu_s - signal.getitimer(signal.ITIMER_PROF)[0])
        raise Expired

    @contextmanager
    def running(self) -> Iterator[None]:
        """Count the code run inside against the budget (raises Expired inside when it is spent)."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        handlers = {sig: signal.signal(sig, self._expire) for sig in (signal.SIGPROF, signal.SIGALRM)}
        before_real = signal.setitimer(signal.ITIMER_REAL, max(self.wall_left, 1e-3), REPEAT_S)
        signal.setitimer(signal.ITIMER_PROF, max(self.cpu_left, 1e-3), REPEAT_S)
        self._armed = True
        try:
            yield
        finally:
            self._armed = False
            self.cpu_left = signal.setitimer(signal.ITIMER_PROF, 0)[0]
            self.wall_left = signal.setitimer(signal.ITIMER_REAL, *before_real)[0]  # e.g. pytest-timeout's
            for sig, handler in handlers.items():  # None: a handler not set from Python, i.e. the default
                signal.signal(sig, signal.SIG_DFL if handler is None else handler)


class TimedImpl:
    """An Implementation whose calls share one InProcessClock (see the module docstring)."""

    def __init__(self, inner, clock: InProcessClock):
        self.inner, self.clock = inner, clock
        self.name = inner.name

    def call_many(self, *, calls, **kwargs):
        results = self.inner.call_many(calls=calls, **kwargs)  # makes each call when asked for its result
        for _ in calls:
            if self.clock.verdict is not None:
                yield self.clock.verdict
                continue
            try:
                with self.clock.running():
                    got = next(results)
            except Expired:
                got = self.clock.verdict
            yield got

    def vjp(self, **kwargs):
        if self.clock.verdict is not None:
            raise self.clock.verdict
        try:
            with self.clock.running():
                return self.inner.vjp(**kwargs)
        except Expired:
            raise self.clock.verdict from None


def time_limited(impl, exercise: str, limits: Limits) -> TimedImpl:
    """`impl` with the exercise's time limit (the run's limits: its framework's, as grading gives it)."""
    return TimedImpl(impl, InProcessClock(exercise, limits.timeout_s, limits.backstop(limits.timeout_s)))
