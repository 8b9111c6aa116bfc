"""An exercise's time budget and the verdicts when it is spent, shared by the two clocks that measure it:
attnlab.student.timer.InProcessClock (the student's own process, by interval-timer signals) and
attnlab.grade.judge.clock.RunnerClock (a grading runner, read from /proc by the judge). CPU time decides;
wall-clock time is only a backstop, and running out of it alone is the code's idling (or, where the judge
can tell, the machine's overload), never a CPU-time verdict.
"""

from attnlab.core.outcomes import Outcome, Overloaded, TimeLimit


class TimeBudget:
    """`cpu_s` of CPU time and `wall_s` of wall-clock time for one exercise, all its calls together."""

    def __init__(self, cpu_s: float, wall_s: float):
        self.cpu_s, self.wall_s = cpu_s, wall_s

    def out_of_cpu(self, exercise: str, *, importing: bool = False) -> TimeLimit:
        """The verdict when the CPU time is spent (while importing the student's code, with `importing`)."""
        return TimeLimit(_prefix(importing) + "cpu_limit", exercise=exercise, seconds=self.cpu_s)

    def out_of_wall(self, exercise: str, cpu_used: float, *, overloaded: bool = False,
                    importing: bool = False) -> Outcome:
        """The verdict when only the wall-clock backstop ran out, `cpu_used` seconds of CPU time in: the
        code's idling (TimeLimit), or with `overloaded` the machine's (Overloaded, never a timeout)."""
        kind, key = (Overloaded, "overloaded") if overloaded else (TimeLimit, "idle_limit")
        return kind(_prefix(importing) + key, exercise=exercise, seconds=self.wall_s, cpu=cpu_used)


def _prefix(importing: bool) -> str:
    return "grade.import_" if importing else "grade."
