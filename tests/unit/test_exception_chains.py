"""Walking an exception's causes ends on a chain that loops. Triton's interpreter raises InterpreterError from
the outcome a kernel rule recorded, and the rule raises that outcome again as the launch ends: the outcome's
context is the InterpreterError, whose cause is the outcome. The runner's memory-failure test spun on such a
chain until the CPU limit (an unmasked kernel got "time limit" instead of "out-of-bounds access")."""

from attnlab.core.imports import not_in_course
from attnlab.core.outcomes import SubmissionError
from attnlab.grade.runner.runner import _is_memory_failure


def looping_chain() -> SubmissionError:
    outcome = SubmissionError("kernel_out_of_bounds", exercise="x", detail="d")
    wrapper = RuntimeError(repr(outcome))
    wrapper.__cause__ = outcome
    outcome.__context__ = wrapper
    return outcome


def test_a_looping_chain_is_walked_once():
    assert _is_memory_failure(looping_chain()) is False
    assert not_in_course(looping_chain()) is None
