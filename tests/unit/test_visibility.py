"""Hidden inputs, never hidden rules (attnlab.core.visibility), for every exercise of the course."""

import dataclasses

import pytest

from attnlab.core import paths
from attnlab.core.spec_load import load_course
from attnlab.core.visibility import hidden_rules

COURSE = load_course(paths.SPEC_DIR)


@pytest.mark.parametrize("exercise", COURSE.all_coded, ids=lambda e: e.id)
def test_nothing_that_costs_points_is_hidden(exercise):
    assert hidden_rules(exercise) == []


def test_the_rule_finds_a_hidden_law_and_a_hidden_input_kind():
    softmax = COURSE.find("softmax")
    hidden_gradient = tuple(dataclasses.replace(p, visible=False) if p.check == "gradient" else p
                            for p in softmax.properties)
    hidden_bf16 = tuple(dataclasses.replace(c, visible=False) if c.name == "bfloat16" else c for c in softmax.cases)
    problems = hidden_rules(dataclasses.replace(softmax, properties=hidden_gradient, cases=hidden_bf16))
    assert any("law 'gradient'" in p for p in problems)
    assert any("in_features with dtype bfloat16" in p for p in problems)
