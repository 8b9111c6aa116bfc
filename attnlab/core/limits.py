"""The time an exercise may take, the same wherever it is checked: grade.py's default `--timeout` and the
student's in-process checks (attnlab.student.timer) both start from these numbers.

The budget is CPU seconds of the student's code per exercise (all its checks together); a wall-clock
backstop of `backstop(seconds)` catches code that waits (sleep, input) instead of computing.
"""

EXERCISE_CPU_S = 60.0
WALL_FACTOR = 3.0
WALL_EXTRA_S = 10.0


def backstop(cpu_s: float) -> float:
    """Wall-clock seconds after which code that has not used up its CPU budget is stopped anyway."""
    return cpu_s * WALL_FACTOR + WALL_EXTRA_S
