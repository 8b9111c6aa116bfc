"""The time an exercise may take, the same wherever it is checked: grade.py's default `--timeout` and the
student's in-process checks (attnlab.student.timer) both start from these numbers.

The budget is CPU seconds of the student's code per exercise (all its checks together); a wall-clock
backstop of `backstop(seconds)` catches code that waits (sleep, input) instead of computing.
"""

EXERCISE_CPU_S = 60.0
WALL_FACTOR = 3.0
WALL_EXTRA_S = 10.0


def exercise_cpu_s(framework: str = "torch") -> float:
    """The CPU seconds an exercise may take in `framework`: EXERCISE_CPU_S times what the framework itself
    costs per operation (its adapter's cpu_factor: JAX compiles every operation for every shape it meets)."""
    from attnlab.core import frameworks  # the adapters import the core modules this one serves

    return EXERCISE_CPU_S * frameworks.adapter(framework).cpu_factor


def backstop(cpu_s: float) -> float:
    """Wall-clock seconds after which code that has not used up its CPU budget is stopped anyway."""
    return cpu_s * WALL_FACTOR + WALL_EXTRA_S
