"""What can go wrong when the code under test is called, as exceptions the checks turn into a status.

Every driver (in-process pytest, the grading runner) raises exactly these, so a check is written once.
Each carries a catalogue message (attnlab.core.i18n), rendered in the reader's language by `text(lang)`;
`str()` is the English text. `with_hint(message)` attaches advice specific to what went wrong, shown
instead of the exercise's general hint.
"""

from collections.abc import Iterator
from typing import Any, Self

from attnlab.core.i18n import Message
from attnlab.core.status import Status


class _Worded:
    """A catalogue message as an exception's text, and advice that may be attached to it (see the module
    docstring). Mixed into Outcome and CheckFailure, which checks catch apart: their bases differ."""

    status: Status
    hint: Message | None = None

    def __init__(self, key: str, /, **values: Any):
        self.message = Message(key, values)
        super().__init__(key)

    def text(self, lang: str = "en") -> str:
        return self.message.text(lang)

    def with_hint(self, hint: Message) -> Self:
        self.hint = hint
        return self

    def __str__(self) -> str:
        return self.text("en")


class Outcome(_Worded, Exception):
    """Base: the call did not produce a usable output."""

    status = Status.ERROR


class NotImplementedByStudent(Outcome):
    status = Status.NOT_IMPLEMENTED


class ForbiddenCall(Outcome):
    status = Status.FORBIDDEN

    def __init__(self, exercise: str, call: str):
        super().__init__("forbidden_call", exercise=exercise, call=call)
        self.call = call
        self.hint = Message("hint_forbidden", {"call": call})  # not the exercise's hint: about wrong values


class KernelRuleBroken(ForbiddenCall):
    """A Triton exercise's result did not come from a kernel (torch arithmetic in the launcher, no launch):
    scored like a forbidden call, with its own words (attnlab.core.frameworks.kernels)."""

    def __init__(self, key: str, /, **values: Any):
        Outcome.__init__(self, key, **values)
        self.call = None


class SubmissionError(Outcome):
    """The submission raised, could not be imported, or returned something that is not a tensor."""

    status = Status.ERROR


class ShapeError(Outcome):
    """The returned tensor does not match the signature's annotation (checked with jaxtyping + beartype)."""

    status = Status.FAILED


class TimeLimit(Outcome):
    """The submission used up its time: CPU time, or wall-clock time with the machine not to blame. Its advice
    is about time, not the exercise's general hint (which is about what a wrong output means)."""

    status = Status.TIMEOUT
    hint = Message("hint_timeout", {})


class Overloaded(Outcome):
    """Only the wall-clock backstop ran out while the submission's own CPU time was within its limit."""

    status = Status.OVERLOADED


class MemoryLimit(Outcome):
    status = Status.MEMORY


class NotApplicable(Outcome):
    """The check cannot apply to this implementation (e.g. a dtype its framework lacks)."""

    status = Status.NOT_APPLICABLE


class NotRun(Outcome):
    """The check could not run here (no such device, no reference values to compare with)."""

    status = Status.NOT_RUN


class CheckFailure(_Worded, AssertionError):
    """A check ran and the output was wrong."""

    status = Status.FAILED


RAISED = (Outcome, CheckFailure)  # what a call or check may raise into the checks

# The student's code did not import (the package, or the module of one exercise): every call it affects
# fails the same way whatever its inputs, so feedback shows it once, without a case's inputs.
IMPORT_FAILURES = frozenset({"import_failed", "import_package_failed", "grade.import_failed",
                             "library_not_in_course", "own_module_by_name"})


# The function cannot be called as the checks call it (its parameters are not the stub's): the same for every
# call too.
SIGNATURE_FAILURES = frozenset({"parameters_renamed", "parameters_added"})


def _key(exc: BaseException) -> str | None:
    if not isinstance(exc, Outcome):
        return None
    message = exc.message
    if message.key == "raw" and isinstance(message.values.get("text"), Message):
        message = message.values["text"]  # a runner's message, as the grader passes it on
    return message.key


def is_import_failure(exc: BaseException) -> bool:
    return _key(exc) in IMPORT_FAILURES


def is_signature_failure(exc: BaseException) -> bool:
    return _key(exc) in SIGNATURE_FAILURES


def exception_chain(exc: BaseException | None) -> Iterator[BaseException]:
    """`exc`, then what it was raised from (its cause, else its context), and so on, each exception once: a
    chain can loop (Triton's interpreter raises InterpreterError from the outcome a kernel rule recorded, and
    the rule raises that outcome again as the launch ends)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__
