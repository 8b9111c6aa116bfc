"""check("softmax", my_softmax) from a notebook cell: the same visible checks and feedback as attnlab."""

import pytest
import torch

from attnlab.core import paths
from attnlab.core.impl import FunctionImpl
from attnlab.core.outcomes import NotImplementedByStudent
from attnlab.core.spec_load import load_course
from attnlab.student.notebook import UnknownExercise, check, hint


def good_softmax(in_features, dim):
    exps = torch.exp(in_features - in_features.amax(dim=dim, keepdim=True))
    return exps / exps.sum(dim=dim, keepdim=True)


def last_dim_softmax(in_features, dim):
    exps = torch.exp(in_features - in_features.amax(dim=-1, keepdim=True))
    return exps / exps.sum(dim=-1, keepdim=True)


def test_a_correct_function_passes_every_visible_check(capsys):
    result = check("softmax", good_softmax, lang="en")
    assert result.status == "passed" and result.score == 8.0
    softmax = load_course(paths.SPEC_DIR).get("softmax")
    visible = [c.name for c in softmax.cases if c.visible] + [p.name for p in softmax.properties if p.visible]
    assert [c.name for c in result.checks] == visible and "gradient" in visible
    out = capsys.readouterr().out
    assert "✓ case last_dim" in out and "8.00 / 8" in out


def test_a_known_mistake_is_diagnosed_in_the_chosen_language(capsys):
    result = check("softmax", last_dim_softmax, lang="zh")
    assert result.status == "failed" and 0 < result.score < 8
    assert {c.diagnosis for c in result.checks if not c.passed and c.kind == "case"} == {"ignores_dim"}
    out = capsys.readouterr().out
    assert "可能的原因" in out and "✗ 用例 first_dim" in out and "softmax 的提示" in out


def test_show_false_prints_nothing_and_a_crash_is_an_error(capsys):
    def crashes(in_features, dim):
        raise ValueError("boom")

    result = check("softmax", crashes, lang="en", show=False)
    assert result.status == "error" and "ValueError: boom" in result.feedback
    assert capsys.readouterr().out == ""


def test_unknown_ids_the_quiz_and_non_callables_are_refused():
    with pytest.raises(UnknownExercise, match="no exercise 'softmx'.*softmax"):
        check("softmx", good_softmax, lang="en")
    with pytest.raises(UnknownExercise, match="quiz.yaml"):
        check("quiz", good_softmax, lang="en")
    with pytest.raises(TypeError, match="run_softmax"):
        FunctionImpl("not a function", function="run_softmax")


def test_the_stand_in_answers_only_for_its_own_function():
    impl = FunctionImpl(good_softmax, function="run_softmax")
    [got] = impl.call_many(exercise="rope", module="rope", function="run_rope", calls=[{}], forbidden_calls=())
    assert isinstance(got, NotImplementedByStudent) and "only run_softmax was given" in str(got)


def test_hint_returns_and_prints(capsys):
    text = hint("causal_mask", lang="en")
    assert "Hints for causal_mask:" in text and text in capsys.readouterr().out
