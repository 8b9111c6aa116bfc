"""Which of the student's exercise functions each exercise's function calls (attnlab.core.callees), in the
styles students write, from source that may be broken; and the line it adds to failing feedback."""

import textwrap
from pathlib import Path

import pytest

from attnlab.core import callees, paths
from attnlab.core.notebook_source import as_package
from attnlab.core.results import CheckResult, ExerciseResult
from attnlab.core.spec_load import load_course
from attnlab.core.status import Status
from attnlab.instructor.notebooks import notebook_for, sources_of, text_of

ATTENTION = load_course(paths.SPEC_DIR, "attention")
CODED = ATTENTION.coded


def package(root: Path, **modules: str) -> Path:
    root.mkdir()
    (root / "__init__.py").write_text("")
    for name, source in modules.items():
        (root / f"{name}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    return root


SOFTMAX = """
    import torch
    def run_softmax(in_features, dim):
        e = torch.exp(in_features - in_features.amax(dim=dim, keepdim=True))
        return e / e.sum(dim=dim, keepdim=True)
"""


def test_every_reference_reaches_what_it_calls_and_nothing_else():
    for framework in ("", "numpy", "jax", "mindspore"):
        found = callees.reached(paths.REFERENCE_DIR / framework, CODED)
        assert found["softmax"] == () and found["causal_mask"] == () and found["dropout"] == (), framework
        # MindSpore's takes nn.Softmax, as seed 001 does; the others call their own run_softmax
        assert found["scaled_dot_product_attention"] == (() if framework == "mindspore" else ("softmax",))
        assert found["causal_attention"][-2:] == ("causal_mask", "scaled_dot_product_attention"), framework
        assert {"causal_mask", "rope"} <= set(found["multihead_self_attention_with_rope"]), framework
    assert set(callees.reached(paths.REFERENCE_DIR, load_course(paths.SPEC_DIR, "modern").coded).values()) == {()}


@pytest.mark.parametrize("attention", [
    # imported by name, as the template does
    """
    from .softmax import run_softmax
    def run_scaled_dot_product_attention(Q, K, V, mask=None):
        return run_softmax(Q @ K.transpose(-2, -1), dim=-1) @ V
    """,
    # imported under another name
    """
    from .softmax import run_softmax as sm
    def run_scaled_dot_product_attention(Q, K, V, mask=None):
        return sm(Q @ K.transpose(-2, -1), dim=-1) @ V
    """,
    # the module imported, the function an attribute
    """
    from . import softmax
    def run_scaled_dot_product_attention(Q, K, V, mask=None):
        return softmax.run_softmax(Q @ K.transpose(-2, -1), dim=-1) @ V
    """,
    # through a helper module and a class whose method calls it
    """
    from .helpers import Attention
    def run_scaled_dot_product_attention(Q, K, V, mask=None):
        return Attention()(Q, K, V)
    """,
])
def test_calls_are_found_however_the_function_is_reached(tmp_path, attention):
    helpers = """
        import torch
        from .softmax import run_softmax
        class Attention(torch.nn.Module):
            def forward(self, q, k, v):
                return weights(q, k) @ v
        def weights(q, k):
            return run_softmax(q @ k.transpose(-2, -1), dim=-1)
    """
    root = package(tmp_path / "mine", softmax=SOFTMAX, attention=attention, helpers=helpers)
    assert callees.reached(root, CODED)["scaled_dot_product_attention"] == ("softmax",)


def test_a_notebooks_package_one_module_per_cell_is_read_as_grade_py_makes_it(tmp_path):
    """grade.py turns a notebook into a package of cell files run in one namespace (notebook_source): the
    functions are in no exercise's module, and are found by name across the cells."""
    notebook = notebook_for(ATTENTION, "en", sources_of(paths.REFERENCE_DIR, ATTENTION))
    (tmp_path / "attention.ipynb").write_text(text_of(notebook), "utf-8")
    root = tmp_path / "package"
    as_package(tmp_path / "attention.ipynb", root)
    assert not (root / "softmax.py").exists() and list(root.glob("notebook_cell_*.py"))
    assert callees.reached(root, CODED) == callees.reached(paths.REFERENCE_DIR, CODED)
    assert callees.reached(root, CODED)["simple_self_attention"] == ("softmax",)


def test_code_that_does_not_call_it_or_defines_its_own_reaches_nothing(tmp_path):
    attention = """
        import torch
        def run_softmax(x, dim):  # a private copy in attention.py: not the graded run_softmax
            return torch.exp(x) / torch.exp(x).sum(dim, keepdim=True)
        def run_scaled_dot_product_attention(Q, K, V, mask=None):
            return run_softmax(Q @ K.transpose(-2, -1), -1) @ V
        def run_simple_self_attention(inputs):
            scores = inputs @ inputs.transpose(-2, -1)
            return torch.exp(scores) / torch.exp(scores).sum(-1, keepdim=True) @ inputs
    """
    root = package(tmp_path / "mine", softmax=SOFTMAX, attention=attention)
    found = callees.reached(root, CODED)
    assert found["scaled_dot_product_attention"] == () and found["simple_self_attention"] == ()


def test_files_that_cannot_be_read_or_parsed_are_left_out(tmp_path):
    root = package(tmp_path / "mine", softmax=SOFTMAX, attention="def run_scaled_dot_product_attention(:\n")
    (root / "rope.py").write_bytes(b"\xff\xfe\x00garbage\x00")
    (root / "multihead.py").write_text("x = (" * 300_000 + ")" * 300_000)  # over the parser's nesting
    (root / "helpers.py").write_text("#" * (callees.MAX_SOURCE_BYTES + 1))
    (root / "linked.py").symlink_to("/etc/passwd")
    assert set(callees.reached(root, CODED).values()) == {()}
    assert set(callees.reached(tmp_path / "missing", CODED).values()) == {()}


def test_what_the_judge_parses_is_bounded_in_all(tmp_path, monkeypatch):
    """An upload may hold 50 MB of Python; the judge parses at most MAX_TOTAL_BYTES of it, the exercises'
    own modules first."""
    monkeypatch.setattr(callees, "MAX_TOTAL_BYTES", 2000)
    attention = "from .softmax import run_softmax\ndef run_scaled_dot_product_attention(Q, K, V, mask=None):\n" \
                "    return run_softmax(Q @ K.transpose(-2, -1), dim=-1) @ V\n"
    padding = {f"aaa{i}": "# " + "x" * 500 for i in range(10)}  # sorted before every module it could crowd out
    root = package(tmp_path / "mine", softmax=SOFTMAX, attention=attention, **padding)
    assert callees.reached(root, CODED)["scaled_dot_product_attention"] == ("softmax",)
    (root / "attention.py").write_text(attention + "#" * 2000)  # over the budget alone: not read
    assert callees.reached(root, CODED)["scaled_dot_product_attention"] == ()


def result(id_: str, status: Status, feedback: str = "...", checks: tuple | None = None) -> ExerciseResult:
    """An exercise's result; unless it passed, with a check that failed with its own message."""
    if checks is None:
        checks = (CheckResult("case", status is Status.PASSED, status, "" if status is Status.PASSED else
                              f"{id_} went wrong"),)
    return ExerciseResult(id_, ATTENTION.get(id_).function, 1.0 if status is Status.PASSED else 0.0, 1.0, status,
                          feedback, checks)


def test_the_note_names_each_failing_callee_first_in_the_assignments_order():
    reached = {"self_attention": ("softmax", "scaled_dot_product_attention"),
               "scaled_dot_product_attention": ("softmax",), "simple_self_attention": ("softmax",)}
    results = [result("softmax", Status.ERROR, "softmax feedback"),
               result("simple_self_attention", Status.PASSED, "passed"),
               result("self_attention", Status.FAILED, "its own"),
               result("scaled_dot_product_attention", Status.ERROR, "sdpa feedback")]
    noted = {r.id: r.feedback for r in callees.noted(results, reached, "en")}
    assert noted["softmax"] == "softmax feedback" and noted["simple_self_attention"] == "passed"
    assert noted["scaled_dot_product_attention"] == (
        "Fix softmax first: run_scaled_dot_product_attention calls your run_softmax (softmax), which fails its own "
        "checks, so the failures below may come from it rather than from run_scaled_dot_product_attention.\n"
        "sdpa feedback")
    first, rest = noted["self_attention"].split("\n")
    assert first.startswith("Fix softmax first: run_self_attention calls your run_softmax (softmax), "
                            "run_scaled_dot_product_attention (scaled_dot_product_attention), which fail their own")
    assert rest == "its own"
    zh = callees.noted(results, reached, "zh")[3].feedback
    assert zh.startswith("请先修好 softmax：run_scaled_dot_product_attention 调用了你的 run_softmax (softmax)")


def test_no_note_where_the_callee_passes_or_the_caller_is_not_written():
    reached = {"scaled_dot_product_attention": ("softmax",)}
    passing = [result("softmax", Status.PASSED), result("scaled_dot_product_attention", Status.FAILED)]
    unwritten = [result("softmax", Status.ERROR), result("scaled_dot_product_attention", Status.NOT_IMPLEMENTED)]
    not_applicable = [result("softmax", Status.NOT_APPLICABLE), result("scaled_dot_product_attention", Status.ERROR)]
    # the run's budget ended before softmax (grade.py --budget): it failed no check of its own
    not_reached = [result("softmax", Status.TIMEOUT, checks=()), result("scaled_dot_product_attention", Status.ERROR)]
    ours = [result("softmax", Status.INTERNAL_ERROR), result("scaled_dot_product_attention", Status.ERROR)]
    for results in (passing, unwritten, not_applicable, not_reached, ours):
        assert callees.noted(results, reached, "en") == results


def test_a_failure_of_ours_leaves_grade_pys_results_as_they_were(tmp_path, monkeypatch):
    results = [result("softmax", Status.ERROR), result("scaled_dot_product_attention", Status.ERROR)]
    root = package(tmp_path / "mine", softmax=SOFTMAX, attention="from .softmax import run_softmax\n"
                   "def run_scaled_dot_product_attention(Q, K, V, mask=None):\n    return run_softmax(Q, -1)\n")
    assert callees.noted_in(results, root, CODED, "en")[1].feedback.startswith("Fix softmax first")

    def broken(*args, **kwargs):
        raise RuntimeError("a bug of ours")

    monkeypatch.setattr(callees, "_Graph", broken)  # reading the sources fails: the student tools see {}
    assert callees.reached(root, CODED) == {}
    monkeypatch.setattr(callees, "reached", broken)
    assert callees.noted_in(results, root, CODED, "en") == results
    # and the sources are not read at all unless two exercises fail: none of it on correct code's path
    read = []
    monkeypatch.setattr(callees, "reached", lambda *args: read.append(args) or {})
    one_failing = [result("softmax", Status.PASSED), result("scaled_dot_product_attention", Status.ERROR)]
    assert callees.noted_in(one_failing, root, CODED, "en") == one_failing and read == []
    assert callees.noted_in(results, root, CODED, "en") == results and len(read) == 1


def test_no_note_where_caller_and_callee_fail_with_the_same_problem():
    """A package that does not import fails every exercise with one message: softmax does not cause it."""
    failed = (CheckResult("case", False, Status.ERROR, "your package does not import: SyntaxError (at softmax.py:3)"),)
    shared = [ExerciseResult("softmax", "run_softmax", 0.0, 8.0, Status.ERROR, "...", failed),
              ExerciseResult("scaled_dot_product_attention", "run_scaled_dot_product_attention", 0.0, 8.0, Status.ERROR,
                             "...", failed)]
    assert callees.noted(shared, {"scaled_dot_product_attention": ("softmax",)}, "en") == shared
    own = (CheckResult("case", False, Status.ERROR, "raised TypeError: unsupported operand (at attention.py:36)"),)
    cascade = [shared[0], ExerciseResult("scaled_dot_product_attention", "run_scaled_dot_product_attention", 0.0,
                                         8.0, Status.ERROR, "...", own)]
    assert callees.noted(cascade, {"scaled_dot_product_attention": ("softmax",)}, "en")[1].feedback.startswith("Fix ")


def test_a_notebooks_function_reaches_the_notebooks_own_functions_by_their_exercise_names():
    namespace = {"__name__": "__main__"}
    exec(compile(textwrap.dedent("""
        import torch
        from torch.nn.functional import softmax as run_softmax  # not the notebook's own: not followed
        def run_causal_mask(seq_len, device=None):
            return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()
        class Helper:
            def mask(self, n):
                return run_causal_mask(n)
        def run_causal_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features):
            def inner(n):
                return Helper().mask(n)
            return run_softmax(inner(in_features.shape[-2]).float(), dim=-1)
    """), "<cells>", "exec"), namespace)
    found = callees.reached_from(namespace["run_causal_attention"], CODED)
    assert [(e.id, f) for e, f in found] == [("causal_mask", namespace["run_causal_mask"])]
    assert callees.reached_from(namespace["run_causal_mask"], CODED) == []
    assert callees.reached_from(len, CODED) == []  # a builtin has no code to read
