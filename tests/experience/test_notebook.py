"""check("softmax", my_softmax) from a notebook cell: the same visible checks and feedback as attnlab."""

import os

import pytest
import torch

from attnlab.core import config, frameworks, paths
from attnlab.core.impl import FunctionImpl
from attnlab.core.outcomes import NotImplementedByStudent
from attnlab.core.spec_load import load_course
from attnlab.student.notebook import UnknownExercise, check, hint

SOFTMAX = load_course(paths.SPEC_DIR).get("softmax")


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
        FunctionImpl("not a function", function="run_softmax", adapter=frameworks.default())


def test_the_stand_in_answers_only_for_its_own_function():
    impl = FunctionImpl(good_softmax, function="run_softmax", adapter=frameworks.default())
    [got] = impl.call_many(exercise="rope", module="rope", function="run_rope", calls=[{}], forbidden_calls=())
    assert isinstance(got, NotImplementedByStudent) and "only run_softmax was given" in str(got)


def test_hint_returns_and_prints(capsys):
    text = hint("causal_mask", lang="en")
    assert "Hints for causal_mask:" in text and capsys.readouterr().out == text + "\n"
    assert repr(text) == "<hints for causal_mask: print(...) or str(...) for the text>"


def test_outside_ipython_the_feedback_is_printed_once_and_the_value_is_one_line(capsys):
    report = check("softmax", good_softmax, lang="en")
    printed = capsys.readouterr().out
    assert printed.count("softmax: Numerically stable softmax") == 1
    assert repr(report) == "<softmax: passed, 8.00 / 8 points; .status .score .checks .feedback>"
    assert str(report) + "\n" == printed and report.result.score == report.score == 8.0


def test_the_html_view_shows_each_check_with_every_text_escaped():
    def raises_markup(in_features, dim):
        raise ValueError("<script>alert(1)</script>")

    html = check("softmax", raises_markup, lang="en", show=False)._repr_html_()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>" not in html
    visible = len([c for c in SOFTMAX.cases if c.visible]) + len([p for p in SOFTMAX.properties if p.visible])
    assert html.count("<pre") == html.count("✗ ") == visible and "✗ case last_dim: error" in html
    passing = check("softmax", good_softmax, lang="zh", show=False)._repr_html_()
    assert passing.count("✓ 用例") == len([c for c in SOFTMAX.cases if c.visible]) and "8.00 / 8" in passing


def test_an_endless_function_times_out_as_when_graded(monkeypatch):
    from attnlab.student import notebook

    monkeypatch.setattr(config, "EXERCISE_CPU_S", 0.5)
    notebook._run.cache_clear()  # a kernel resolves its run once: this one, with the shorter limit

    def endless(in_features, dim):
        while True:
            in_features = in_features + 0

    result = check("softmax", endless, lang="en", show=False)
    assert result.status == "timeout" and "used more than its 0.5 s of CPU time" in result.feedback


SETUP = """
import torch
from attnlab.student.notebook import check, hint

def my_softmax(in_features, dim):
    exps = torch.exp(in_features - in_features.amax(dim=dim, keepdim=True))
    return exps / exps.sum(dim=dim, keepdim=True)
"""


@pytest.mark.e2e
def test_in_a_jupyter_kernel_feedback_is_displayed_once_as_html():
    """A real kernel, as a notebook front end drives it: every output message of each cell is collected."""
    manager = pytest.importorskip("jupyter_client.manager")
    env = {**os.environ, "PYTHONPATH": str(paths.ROOT)}
    kernel, client = manager.start_new_kernel(kernel_name="python3", startup_timeout=120, env=env, cwd=str(paths.ROOT))

    def cell(code: str) -> list[dict]:
        outputs = []
        reply = client.execute_interactive(code, timeout=180, output_hook=lambda msg: outputs.append(msg) if msg[
            "msg_type"] in ("display_data", "execute_result", "stream", "error") else None)
        assert reply["content"]["status"] == "ok", reply["content"]
        return [(msg["msg_type"], msg["content"].get("data") or msg["content"].get("text")) for msg in outputs]

    try:
        assert cell(SETUP) == []
        for code in ('check("softmax", my_softmax, lang="en")', 'result = check("softmax", my_softmax, lang="en")',
                     "result"):
            [(kind, data)] = cell(code)  # once, whether the call is the cell's value or not
            assert kind == "display_data" and "✓ case last_dim" in data["text/html"], (code, kind, data)
            assert "8.00 / 8" in data["text/plain"] and "ExerciseResult(" not in str(data)
        [(kind, data)] = cell('hint("rope", lang="zh")')
        assert kind == "display_data" and "rope 的提示" in data["text/html"]
        [(kind, data)] = cell("result.status, result.score")
        assert kind == "execute_result" and data["text/plain"] == "(<Status.PASSED: 'passed'>, 8.0)"
    finally:
        client.stop_channels()
        kernel.shutdown_kernel(now=True)


@pytest.fixture(autouse=True)
def _fresh_run_per_test():
    """Each test resolves its own run (check() caches it per kernel, and one test shortens the limit)."""
    from attnlab.student import notebook

    notebook._run.cache_clear()
    yield
    notebook._run.cache_clear()


NOTEBOOK_CELLS = """
import torch

def run_softmax(in_features, dim):
    exps = torch.exp(in_features - in_features.amax(dim=dim, keepdim=True))
    exps = exps / exps.sum(dim=dim, keepdim=True)  # no return: the cell's mistake

def attention_weights(Q, K):
    return run_softmax(Q @ K.transpose(-2, -1) / K.shape[-1] ** 0.5, dim=-1)

def run_scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / K.shape[-1] ** 0.5
    if mask is not None:
        return run_softmax(scores.masked_fill(~mask, float("-inf")), dim=-1) @ V
    return attention_weights(Q, K) @ V
"""


def test_a_function_built_on_the_notebooks_broken_softmax_is_told_to_mend_it_first(capsys):
    """In a notebook, run_scaled_dot_product_attention calls (directly, and through a helper cell) the
    notebook's run_softmax, which returns nothing: check() of it opens by saying so."""
    namespace = {"__name__": "__main__"}
    exec(compile(NOTEBOOK_CELLS, "<cells>", "exec"), namespace)  # as a notebook defines them
    result = check("scaled_dot_product_attention", namespace["run_scaled_dot_product_attention"], lang="en")
    out = capsys.readouterr().out
    assert result.status == "error"
    assert out.splitlines()[1].strip().startswith(
        "Fix softmax first: run_scaled_dot_product_attention calls your run_softmax (softmax), which fails")
    assert "Fix " not in str(check("softmax", namespace["run_softmax"], lang="en", show=False).feedback)
    namespace["run_softmax"] = good_softmax  # mended: nothing to say of softmax any more
    mended = check("scaled_dot_product_attention", namespace["run_scaled_dot_product_attention"], lang="en")
    assert mended.score > result.score and "Fix " not in capsys.readouterr().out
