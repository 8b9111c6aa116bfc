"""What a student reads: shape errors, value mismatches, NaNs, in-place edits, dtype, forbidden calls."""

import torch

from attnlab.core import frameworks, paths
from attnlab.core.checks import run_case
from attnlab.core.impl import FileImpl
from attnlab.core.scoring import grade_exercise, make_context
from attnlab.core.spec_load import load_course

COURSE = load_course(paths.SPEC_DIR)


def impl_from(tmp_path, source: str) -> FileImpl:
    path = tmp_path / "impl.py"
    path.write_text("import torch\nimport torch.nn.functional as F\n" + source)
    return FileImpl(path, adapter=frameworks.default())


def case_result(tmp_path, exercise_id, case_name, source, lang="en"):
    exercise = COURSE.get(exercise_id)
    ctx = make_context(exercise, impl_from(tmp_path, source), lang=lang)
    return run_case(ctx, next(c for c in exercise.cases if c.name == case_name))


def test_wrong_shape_reads_as_a_sentence(tmp_path):
    result = case_result(tmp_path, "rope", "offset_positions", (
        "def run_rope(d_k, theta, max_seq_len, in_query_or_key, token_positions):\n"
        "    return in_query_or_key[..., : d_k // 2].clone()\n"))
    assert result.status == "failed"
    assert "run_rope returned float32 (2, 6, 8), expected Float (... seq d_k) with seq=6, d_k=16" in result.message


def test_value_mismatch_names_case_shapes_error_index_tolerance_and_hint(tmp_path):
    impl = impl_from(tmp_path, (
        "def run_softmax(in_features, dim):\n"
        "    e = (in_features - in_features.max()).exp()\n"
        "    return e / e.sum(-1, keepdim=True)\n"))
    result = grade_exercise(make_context(COURSE.get("softmax"), impl))
    text = result.feedback
    assert text.count("Hint:") == 1
    assert result.status == "failed"
    for fragment in ("softmax · case first_dim", "in_features=(4, 3) float32, dim=0", "max abs error",
                     "at index (", "got ", "expected ", "atol=1e-06, rtol=0.0001", "Hint: Subtract the maximum"):
        assert fragment in text, text


def test_feedback_in_chinese(tmp_path):
    result = case_result(tmp_path, "softmax", "first_dim", (
        "def run_softmax(in_features, dim):\n"
        "    e = in_features.exp()\n"
        "    return e / e.sum(-1, keepdim=True)\n"), lang="zh")
    assert "用例 first_dim" in result.message and "最大绝对误差" in result.message


def test_nan_output_is_reported_with_its_position(tmp_path):
    result = case_result(tmp_path, "softmax", "rows_of_different_scale", (
        "def run_softmax(in_features, dim):\n"
        "    e = (in_features - in_features.max()).exp()\n"
        "    return e / e.sum(dim, keepdim=True)\n"))
    assert result.status == "failed" and "NaN/inf" in result.message


def test_in_place_modification_fails(tmp_path):
    result = case_result(tmp_path, "softmax", "last_dim", (
        "def run_softmax(in_features, dim):\n"
        "    in_features -= in_features.amax(dim, keepdim=True)\n"
        "    e = in_features.exp()\n"
        "    return e / e.sum(dim, keepdim=True)\n"))
    assert result.status == "failed" and "in place" in result.message
    assert "an augmented assignment (x /= s, x += y)" in result.hint  # not the exercise's hint: wrong values


def test_dtype_must_be_preserved(tmp_path):
    exercise = COURSE.get("softmax")
    ctx = make_context(exercise, impl_from(tmp_path, (
        "def run_softmax(in_features, dim):\n"
        "    x = in_features.float()\n"
        "    e = (x - x.amax(dim, keepdim=True)).exp()\n"
        "    return e / e.sum(dim, keepdim=True)\n")))
    result = run_case(ctx, next(c for c in exercise.cases if c.name == "four_dims_float64"))
    assert result.status == "failed" and "dtype" in result.message
    assert "cast the result back to in_features's dtype before returning it" in result.hint  # not about wrong values


def test_forbidden_call_fails_the_exercise_even_through_an_obfuscated_name(tmp_path):
    impl = impl_from(tmp_path, (
        "def run_softmax(in_features, dim):\n"
        "    fn = getattr(torch.nn.functional, 'soft' + 'max')\n"
        "    return fn(in_features, dim)\n"))
    result = grade_exercise(make_context(COURSE.get("softmax"), impl))
    assert result.status == "forbidden" and result.score == 0
    assert "torch.nn.functional.softmax" in result.feedback
    hints = [line for line in result.feedback.splitlines() if "Hint:" in line]  # once, about the ban
    assert hints == ["  Hint: torch.nn.functional.softmax computes what this exercise asks you to write, so it may "
                     "not be used here, directly or through a helper that calls it: write the computation from "
                     "basic array operations, as the function's docstring describes (your own functions from "
                     "earlier exercises are allowed)"], result.feedback


def test_forbidden_aten_route_and_swallowed_exception_are_still_caught(tmp_path):
    impl = impl_from(tmp_path, (
        "def run_softmax(in_features, dim):\n"
        "    try:\n"
        "        return torch.ops.aten._softmax(in_features, dim, False)\n"
        "    except Exception:\n"
        "        e = (in_features - in_features.amax(dim, keepdim=True)).exp()\n"
        "        return e / e.sum(dim, keepdim=True)\n"))
    result = grade_exercise(make_context(COURSE.get("softmax"), impl))
    assert result.status == "forbidden" and "aten._softmax" in result.feedback


def test_crash_is_an_error_with_file_and_line(tmp_path):
    result = case_result(tmp_path, "softmax", "last_dim", (
        "def run_softmax(in_features, dim):\n"
        "    return in_features @ torch.zeros(7, 7)\n"))
    assert result.status == "error" and "impl.py:4" in result.message


def test_non_tensor_return_is_an_error(tmp_path):
    result = case_result(tmp_path, "softmax", "last_dim", (
        "def run_softmax(in_features, dim):\n"
        "    return in_features.tolist()\n"))
    assert result.status == "error" and "returned list" in result.message


def test_partial_credit_and_status(tmp_path):
    impl = impl_from(tmp_path, (
        "def run_softmax(in_features, dim):\n"
        "    e = (in_features - in_features.amax(-1, keepdim=True)).exp()\n"
        "    return e / e.sum(-1, keepdim=True)\n"))
    result = grade_exercise(make_context(COURSE.get("softmax"), impl))
    assert result.status == "failed" and 0 < result.score < result.max_score


def test_reference_output_survives_tensor_subclass_tricks(tmp_path):
    impl = impl_from(tmp_path, (
        "class Liar(torch.Tensor):\n"
        "    def __eq__(self, other):\n"
        "        return torch.ones_like(self, dtype=torch.bool)\n"
        "def run_softmax(in_features, dim):\n"
        "    return torch.zeros_like(in_features).as_subclass(Liar)\n"))
    result = grade_exercise(make_context(COURSE.get("softmax"), impl))
    cases = {c.name for c in COURSE.get("softmax").cases}
    assert all(not c.passed for c in result.checks if c.name in cases)
    assert torch.tensor(1.0).__class__ is torch.Tensor


def test_laws_alone_earn_nothing(tmp_path):
    """Zeros satisfy causality; without a single correct case the exercise still scores 0."""
    impl = impl_from(tmp_path, (
        "def run_causal_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,\n"
        "                         q_proj_bias=None, k_proj_bias=None, v_proj_bias=None):\n"
        "    return in_features.new_zeros(*in_features.shape[:-1], d_out)\n"))
    result = grade_exercise(make_context(COURSE.get("causal_attention"), impl))
    assert any(c.passed for c in result.checks if c.kind == "property")
    assert result.score == 0 and result.status == "failed"


def test_fresh_draws_change_every_input_including_literals_and_sizes():
    from attnlab.core.inputs import build_args

    for exercise_id, case_name in (("simple_self_attention", "journey_sentence"), ("causal_mask", "short")):
        case = next(c for c in COURSE.get(exercise_id).cases if c.name == case_name)
        published, fresh = build_args(case), build_args(case, fresh_seed=12345)
        for name in published:
            assert not (published[name] == fresh[name]) if not isinstance(fresh[name], torch.Tensor) else \
                not torch.equal(published[name], fresh[name])


def test_a_remembered_passing_signature_does_not_hide_a_wrong_one():
    """check_call remembers shapes that passed; an output of another shape is still checked, and fails."""
    import pytest

    from attnlab.core.outcomes import ShapeError
    from attnlab.core.typecheck import check_call
    from reference.softmax import run_softmax as fn
    args = {"in_features": torch.ones(2, 3), "dim": -1}
    for _ in range(2):  # the second time from memory
        check_call(fn, args, torch.ones(2, 3), name="run_softmax")
    with pytest.raises(ShapeError, match="returned float32 \\(3, 2\\)"):
        check_call(fn, args, torch.ones(3, 2), name="run_softmax")
    with pytest.raises(ShapeError):
        check_call(fn, args, torch.ones(2, 3, dtype=torch.int64), name="run_softmax")


def test_in_process_a_law_stops_calling_at_its_first_failure(tmp_path):
    """Context.call_many makes in-process calls one at a time, as asked for: a law that fails on its first
    example does not run the student's code on the other 19 (their prints would bury the failure)."""
    from attnlab.core.checks import run_property

    impl = impl_from(tmp_path, (
        "CALLS = []\n"
        "def run_softmax(in_features, dim):\n"
        "    CALLS.append(1)\n"
        "    return in_features.exp()\n"))
    exercise = COURSE.get("softmax")
    law = next(p for p in exercise.properties if p.check == "softmax_normalised")
    result = run_property(make_context(exercise, impl), law)
    assert not result.passed and "outputs must be finite and in [0, 1]" in result.message
    assert len(impl._package.CALLS) == 1


def test_an_import_failure_is_quoted_once_per_exercise_and_once_per_submission(tmp_path):
    from attnlab.grade.judge.judge import said_once

    impl = impl_from(tmp_path, "import torch.nonexistent_module\n")
    results = [grade_exercise(make_context(COURSE.get(i), impl, lang="en")) for i in ("softmax", "rope")]
    for result in results:
        assert result.status == "error" and result.feedback.count("ModuleNotFoundError") == 1, result.feedback
        assert result.feedback.startswith("importing impl.py failed: ModuleNotFoundError")
        assert "(+" not in result.feedback  # no "(+11 more)" of the same
        assert "fix this error first" in result.feedback and "case " not in result.feedback
    softmax, rope = said_once(results, "en")
    assert softmax.feedback == results[0].feedback
    assert rope.feedback == "fails with the same problem as softmax (see its feedback)" and rope.score == 0


def test_a_size_no_argument_fixes_is_compared_not_crashed_on(tmp_path):
    """causal_mask's size comes from an int (its annotation's dim seq_len): a mask one row too big fails its
    case with both shapes named."""
    result = case_result(tmp_path, "causal_mask", "short", (
        "def run_causal_mask(seq_len, device=None):\n"
        "    return torch.ones(seq_len + 1, seq_len + 1, dtype=torch.bool).tril()\n"))
    assert result.status == "failed"
    assert "returned bool (57, 57), expected Bool (seq_len seq_len) with seq_len=56" in result.message, result.message


NOTES_3D = '''
class MultiHeadAttentionWrapper(torch.nn.Module):  # the course notes' modules, written for (batch, seq, d) only
    def __init__(self, d_in, d_out, num_heads):
        super().__init__()
        self.heads = torch.nn.ModuleList([torch.nn.ModuleDict({n: torch.nn.Linear(d_in, d_out, bias=False)
                                                               for n in "qkv"}) for _ in range(num_heads)])

    def forward(self, x):
        outs = []
        for head in self.heads:
            b, num_tokens, d_in = x.shape
            q, k, v = head["q"](x), head["k"](x), head["v"](x)
            scores = q @ k.transpose(1, 2)
            scores = scores.masked_fill(torch.ones(num_tokens, num_tokens).triu(1).bool(), -torch.inf)
            outs.append(torch.softmax(scores / k.shape[-1] ** 0.5, dim=-1) @ v)
        return torch.cat(outs, dim=-1)


def run_multihead_attention_wrapper(d_in, d_out, num_heads, q_proj_weights, k_proj_weights, v_proj_weights,
                                    in_features):
    mha = MultiHeadAttentionWrapper(d_in, d_out, num_heads).to(in_features.dtype)
    with torch.no_grad():
        for h, head in enumerate(mha.heads):
            for name, w in zip("qkv", (q_proj_weights, k_proj_weights, v_proj_weights)):
                head[name].weight.copy_(w[h])
    return mha(in_features)
'''


def test_code_for_3d_input_alone_is_told_to_count_dimensions_from_the_end(tmp_path):
    """The notes' modules unpack `b, n, d = x.shape`: they pass the cases with one leading dimension and
    raise on those with none or two, where "not enough values to unpack" alone does not say why."""
    exercise = COURSE.get("multihead_attention_wrapper")
    for lang, words in (("en", "raised on has 0, 2 leading dimension(s)"), ("zh", "报错的输入都有 0, 2 个前导维")):
        result = grade_exercise(make_context(exercise, impl_from(tmp_path, NOTES_3D), lang=lang))
        raised = [c for c in result.checks if c.status == "error"]
        assert {c.name for c in raised} == {"no_batch_long", "two_leading_dims_float64"}
        assert all(words in c.hint for c in raised) and result.feedback.count(words) == 1
        assert "values to unpack" in result.feedback and not any(c.hint for c in result.checks if c.passed)
    # a case whose input is a literal nested list (the notes' journey example) counts its depth
    causal = grade_exercise(make_context(COURSE.get("causal_attention"), impl_from(tmp_path, (
        "def run_causal_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,\n"
        "                         q_proj_bias=None, k_proj_bias=None, v_proj_bias=None):\n"
        "    b, n, _ = in_features.shape\n"
        "    q, k, v = (F.linear(in_features, w, bias) for w, bias in ((q_proj_weight, q_proj_bias),\n"
        "               (k_proj_weight, k_proj_bias), (v_proj_weight, v_proj_bias)))\n"
        "    s = (q @ k.transpose(1, 2) / k.shape[-1] ** 0.5).masked_fill(\n"
        "        torch.ones(n, n, dtype=torch.bool, device=q.device).triu(1), float('-inf'))\n"
        "    return torch.softmax(s, dim=-1) @ v\n"))))
    assert "journey_d_out_2" in causal.feedback and "raised on has 0, 3 leading dimension(s)" in causal.feedback
    # raising for another reason on every input, or on one with a leading dimension too: no such hint
    for raises, passed in (("True", 0), ("x.dtype == torch.bfloat16", 2)):
        source = NOTES_3D.replace("            b, num_tokens, d_in = x.shape",
                                  f"            if {raises}:\n                raise ValueError('no')\n"
                                  "            b, num_tokens, d_in = x.shape")
        result = grade_exercise(make_context(exercise, impl_from(tmp_path, source)))
        assert "ValueError: no" in result.feedback and "leading dimension" not in result.feedback
        assert sum(c.passed for c in result.checks if c.kind == "case") == passed


def test_two_dtypes_meeting_is_told_as_such_not_as_a_count_of_dimensions(tmp_path):
    """Code that changes a dtype on the way can raise on just the inputs of one count of leading dimensions
    (here a float64 copy of an input that is not 3-D meets float32 weights): the exception names two dtypes,
    and the hint says to find where the dtype changed, not to count dimensions from the end."""
    exercise = COURSE.get("multihead_attention_wrapper")
    source = (
        "def run_multihead_attention_wrapper(d_in, d_out, num_heads, q_proj_weights, k_proj_weights,\n"
        "                                    v_proj_weights, in_features):\n"
        "    x = in_features if in_features.dim() == 3 else in_features.double()  # the slip\n"
        "    n, heads = x.shape[-2], []\n"
        "    for h in range(num_heads):\n"
        "        q, k, v = (x @ w[h].T for w in (q_proj_weights, k_proj_weights, v_proj_weights))\n"
        "        s = (q @ k.transpose(-2, -1) / k.shape[-1] ** 0.5).masked_fill(\n"
        "            torch.ones(n, n, dtype=torch.bool, device=q.device).triu(1), float('-inf'))\n"
        "        heads.append(torch.softmax(s, dim=-1) @ v)\n"
        "    return torch.cat(heads, dim=-1).to(in_features.dtype)\n")
    for lang, words in (("en", "two operands of different dtypes met in one operation"),
                        ("zh", "同一运算中遇到了不同 dtype 的操作数")):
        result = grade_exercise(make_context(exercise, impl_from(tmp_path, source), lang=lang))
        raised = [c for c in result.checks if c.status == "error"]
        assert {c.name for c in raised} == {"no_batch_long"}, result.feedback  # float32 with no leading dims
        assert "same dtype" in raised[0].message and words in raised[0].hint and result.feedback.count(words) == 1
        assert "leading dimension" not in result.feedback and "前导维" not in result.feedback


SDPA_RETURNING_WEIGHTS = (
    "def run_scaled_dot_product_attention(Q, K, V, mask=None):\n"
    "    scores = Q @ K.transpose(-2, -1) / Q.shape[-1] ** 0.5\n"
    "    if mask is not None:\n"
    "        scores = scores.masked_fill(~mask.bool(), float('-inf'))\n"
    "    weights = scores.softmax(-1)\n"
    "    return {returned}\n")


def test_returning_output_and_weights_is_told_once_what_to_return(tmp_path):
    """`return output, weights` (many tutorials' attention): the shape error under each case, and one hint in
    place of the exercise's own (which is about wrong values) saying to return the output alone."""
    exercise = COURSE.get("scaled_dot_product_attention")
    impl = impl_from(tmp_path, SDPA_RETURNING_WEIGHTS.format(returned="weights @ V, weights"))
    text = grade_exercise(make_context(exercise, impl)).feedback
    assert "returned (float32 (5, 8), float32 (5, 5)), expected (Float (... queries d_v))" in text, text
    assert text.count("Hint:") == 1 and text.count("the attention weights") == 1, text
    assert "run_scaled_dot_product_attention returns 2 values, and the first of them has the shape" in text
    assert exercise.hint("en") not in text
    zh = grade_exercise(make_context(exercise, impl, lang="zh")).feedback
    assert "返回了 2 个值，其中第一个正是它应单独返回的形状" in zh, zh


def test_several_values_whose_first_has_another_shape_get_the_exercise_hint(tmp_path):
    exercise = COURSE.get("scaled_dot_product_attention")
    impl = impl_from(tmp_path, SDPA_RETURNING_WEIGHTS.format(returned="weights, weights @ V"))
    text = grade_exercise(make_context(exercise, impl)).feedback
    assert "returned (float32 (5, 5), float32 (5, 8))" in text and "the attention weights" not in text, text
    assert exercise.hint("en") in text


def test_a_forgotten_return_is_told_once_to_return_the_result(tmp_path):
    exercise = COURSE.get("softmax")
    impl = impl_from(tmp_path, (
        "def run_softmax(in_features, dim):\n"
        "    e = (in_features - in_features.amax(dim, keepdim=True)).exp()\n"
        "    out = e / e.sum(dim, keepdim=True)\n"))
    text = grade_exercise(make_context(exercise, impl)).feedback
    assert "run_softmax returned NoneType, expected a torch.Tensor" in text
    hints = [line for line in text.splitlines() if "Hint:" in line]
    assert hints == ["  Hint: a Python function that ends without a `return` statement returns None: end run_softmax "
                     "with `return` and its result (a helper it calls may need one too)"], text


def test_returning_one_of_several_outputs_is_told_what_to_return(tmp_path):
    exercise = load_course(paths.SPEC_DIR, "modern").get("kv_cache_attention")
    impl = impl_from(tmp_path, (
        "def run_kv_cache_attention(Q, K, V, k_cache, v_cache):\n"
        "    keys, values = torch.cat([k_cache, K], -2), torch.cat([v_cache, V], -2)\n"
        "    t_new, t_all = Q.shape[-2], keys.shape[-2]\n"
        "    allowed = torch.ones(t_new, t_all, dtype=torch.bool).tril(t_all - t_new)\n"
        "    scores = (Q @ keys.transpose(-2, -1) / Q.shape[-1] ** 0.5).masked_fill(~allowed, float('-inf'))\n"
        "    return scores.softmax(-1) @ values\n"))
    text = grade_exercise(make_context(exercise, impl)).feedback
    assert "returned 1 tensor(s), expected 3: (output, new_k_cache, new_v_cache)" in text, text
    hints = [line for line in text.splitlines() if "Hint:" in line]
    assert hints == ["  Hint: run_kv_cache_attention returns several tensors, as one tuple in this order: "
                     "`return output, new_k_cache, new_v_cache`"], text


def test_numpy_float64_scalar_that_promotes_the_result_is_named_in_the_dtype_hint():
    """The corpus' NumPy bug: `/ np.sqrt(d_k)` makes float32 scores float64 (NumPy 2 keeps a NumPy scalar's
    dtype); the hint names that trap and its fix, in NumPy's words."""
    exercise = load_course(paths.SPEC_DIR, framework="numpy").get("scaled_dot_product_attention")
    bug = paths.ROOT / "tests" / "mutations" / "scaled_dot_product_attention" / "numpy" / "bug_sqrt_promotes_float64.py"
    impl = FileImpl(bug, adapter=frameworks.adapter("numpy"))
    text = grade_exercise(make_context(exercise.in_framework("numpy"), impl)).feedback
    assert "returned dtype float64, expected float32" in text, text
    hints = [line for line in text.splitlines() if "Hint:" in line]
    assert len(hints) == 1 and "np.sqrt(d_k) where math.sqrt(d_k) keeps float32" in hints[0], text
    assert "cast the result back to Q's dtype" in hints[0]
