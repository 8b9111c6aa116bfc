"""What can go wrong when the code under test is called, as exceptions the checks turn into a status.

Every driver (in-process pytest, the grading runner) raises exactly these, so a check is written once.
`status` is the value that ends up in results ("failed", "error", ...).
"""


class Outcome(Exception):
    """Base: the call did not produce a usable output."""

    status = "error"


class NotImplementedByStudent(Outcome):
    status = "not_implemented"


class ForbiddenCall(Outcome):
    status = "forbidden"

    def __init__(self, exercise: str, call: str):
        super().__init__(f"{exercise}: the forbidden call {call} was used")
        self.call = call


class SubmissionError(Outcome):
    """The submission raised, could not be imported, or returned something that is not a tensor."""

    status = "error"


class ShapeError(Outcome):
    """The returned tensor does not match the signature's annotation (checked with jaxtyping + beartype)."""

    status = "failed"


class TimeLimit(Outcome):
    status = "timeout"


class MemoryLimit(Outcome):
    status = "memory"


class CheckFailure(AssertionError):
    """A check ran and the output was wrong. `report` is the full student-facing text."""

    status = "failed"
