"""The one vocabulary of outcomes: every check, exercise and submission result has one of these statuses.

A `Status` is a `str` (its value), so results serialise to JSON as plain words and compare equal to them;
code names them as members (`Status.PASSED`), never as string literals.
"""

from enum import Enum


class Status(str, Enum):
    PASSED = "passed"
    FAILED = "failed"  # ran, and the output (or a law) was wrong
    ERROR = "error"  # raised, did not import, returned a non-tensor, or the upload was unusable
    TIMEOUT = "timeout"  # the submission's own time limit (CPU time) ran out
    OVERLOADED = "overloaded"  # the machine, not the submission: only the wall-clock backstop ran out
    MEMORY = "memory"
    NOT_IMPLEMENTED = "not_implemented"
    FORBIDDEN = "forbidden"
    NOT_APPLICABLE = "not_applicable"  # the check cannot apply here (a dtype the framework lacks)
    NOT_RUN = "not_run"  # the check could not run here (no CUDA device, no reference values)
    INTERNAL_ERROR = "internal_error"  # the judge's own code failed on this check: not the student's doing

    def __str__(self) -> str:
        return self.value


# When no check of an exercise passes, its status is the most telling of its failures, in this order.
SEVERITY = (Status.INTERNAL_ERROR, Status.FORBIDDEN, Status.TIMEOUT, Status.OVERLOADED, Status.MEMORY, Status.ERROR,
            Status.NOT_IMPLEMENTED, Status.FAILED, Status.NOT_RUN)
# Checks with these statuses count neither for nor against a score: they are shown, and left out.
EXCLUDED = frozenset({Status.NOT_APPLICABLE})
# After one of these, the exercise's remaining checks are not run (each would fail the same way).
STOPS = frozenset({Status.NOT_IMPLEMENTED, Status.TIMEOUT, Status.OVERLOADED})


def parse(value: str) -> Status:
    """The Status named by `value` (e.g. read back from a results file); ValueError naming the choices."""
    try:
        return Status(value)
    except ValueError:
        raise ValueError(f"unknown status {value!r}; expected one of {[s.value for s in Status]}") from None
