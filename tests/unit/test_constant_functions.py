"""A function that returns a constant (zeros, ones) of the right shape and dtype earns nothing in any
exercise, though it passes cases whose expected output is constant and laws such as causality."""

import pytest
import torch

from attnlab.core import paths
from attnlab.core.impl import Returned, find_function
from attnlab.core.outcomes import SubmissionError
from attnlab.core.outputs import join, parts
from attnlab.core.scoring import grade_exercise, load_reference, make_context
from attnlab.core.spec_load import load_course

COURSE = load_course(paths.SPEC_DIR)


class ConstantImpl:
    """Answers every call with `value` in the reference's output shape(s), dtype(s) and device."""

    def __init__(self, value: float):
        self.name, self.value = f"constant {value}", value

    def call_many(self, *, exercise, module, function, calls, forbidden_calls, deep_guard=True, budgets=None):
        reference = find_function(load_reference(), module, function)
        for kwargs in calls:
            with torch.no_grad():
                shape = reference(**kwargs)
            yield Returned(join([torch.full_like(t, self.value) for t in parts(shape)],
                                isinstance(shape, torch.Tensor)))

    def vjp(self, *, function, **kwargs):
        raise SubmissionError("not_differentiable", function=function)  # nothing flows through a constant


@pytest.mark.parametrize("value", [0.0, 1.0])
# an exercise with a memory-budgeted case (flash_attention) runs seconds of arithmetic per grading: slow
@pytest.mark.parametrize("exercise", [pytest.param(e, id=e.id, marks=[pytest.mark.slow] * any(
    c.max_tensor_mb is not None for c in e.cases)) for e in COURSE.all_coded])
def test_a_constant_function_scores_nothing(exercise, value):
    result = grade_exercise(make_context(exercise, ConstantImpl(value)))
    assert result.score == 0, [(c.name, c.status) for c in result.checks if c.passed]
