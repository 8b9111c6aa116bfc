"""Quick sanity checks of the reference package: shapes, dtypes, leading dimensions, purity, masking.

Every batched exercise gives an example call in its spec/<id>.py (`example(generator, lead, dtype)`, see
attnlab.core.examples); the generic tests run over those. Then checks of single exercises by hand.
"""

import math
from types import SimpleNamespace

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import reference
from attnlab.core import paths
from attnlab.core.exercises import code_for
from attnlab.core.impl import find_function
from attnlab.core.outcomes import SubmissionError
from attnlab.core.outputs import parts
from attnlab.core.spec_load import load_course

COURSE = load_course(paths.SPEC_DIR)


def importable(exercise):
    """The reference's function, or None where this venv lacks a library its module needs (triton, for the
    systems assignment, is not in .venv-mindspore, which collects this file too)."""
    try:
        return find_function(reference, exercise.module, exercise.function)
    except SubmissionError:
        return None


# the reference's run_* functions by name: R.run_softmax, ...
R = SimpleNamespace(**{e.function: f for e in COURSE.all_coded if (f := importable(e)) is not None})
EXAMPLES = {e.id: example for e in COURSE.all_coded if (example := code_for(paths.SPEC_DIR, e.id).example)}
SEQ, D_IN, D_MODEL = 5, 6, 8  # the sizes the examples use (attnlab.core.examples)
LEADING = [(), (2,), (2, 1, 3)]
DTYPES = [torch.float32, torch.float64, torch.bfloat16]


def build(name, lead=(), dtype=torch.float64, seed=0):
    """(function, kwargs, the argument carrying the sequence, the output's last dim, the example)."""
    example = EXAMPLES[name](torch.Generator().manual_seed(seed), lead, dtype)
    function = getattr(R, COURSE.find(name).function)
    return function, example.kwargs, example.batched[0], example.last_dim, example


def call(function, kwargs):
    """Call by keyword; a fresh generator state for dropout so repeated calls draw the same numbers."""
    if isinstance(kwargs.get("generator"), torch.Generator):
        kwargs = {**kwargs, "generator": torch.Generator().manual_seed(0)}
    return function(**kwargs)


def deterministic():
    return [name for name in EXAMPLES if not build(name)[4].random]


def causal():
    return [name for name in EXAMPLES if build(name)[4].causal]


def test_every_batched_exercise_has_an_example():
    # no example where the input is not a batch of float vectors (see each spec/<id>.py), nor for
    # kv_cache_attention, whose outputs grow along different dims (tests/test_reference_kv_cache_gqa.py), nor
    # paged_attention (sequences are a block table's rows, not a batch axis) and the Triton exercises (their
    # kernels' checks run in Triton's interpreter: tests/unit/test_triton_kernels.py)
    without = {"causal_mask", "sinusoidal_positional_encoding", "kv_cache_attention", "paged_attention",
               "triton_flash_forward", "triton_flash_backward"}
    assert set(EXAMPLES) == {e.id for e in COURSE.all_coded} - without


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("lead", LEADING, ids=str)
@pytest.mark.parametrize("name", list(EXAMPLES))
def test_shape_dtype_and_inputs_untouched(name, lead, dtype):
    function, kwargs, seq_arg, last_dim, _ = build(name, lead, dtype)
    before = {key: value.clone() for key, value in kwargs.items() if isinstance(value, torch.Tensor)}

    outs = parts(call(function, kwargs))  # several outputs (flash_attention's O and L): the first is the main one

    assert outs[0].shape == (*lead, kwargs[seq_arg].shape[-2], last_dim)
    assert outs[0].dtype == dtype
    assert all(out.shape[:len(lead)] == lead and torch.isfinite(out).all() for out in outs)
    for key, value in before.items():
        assert torch.equal(kwargs[key], value), f"{name} modified its argument {key}"
    tensors = [value for value in kwargs.values() if isinstance(value, torch.Tensor)]
    assert all(out.data_ptr() != value.data_ptr() for out in outs for value in tensors), "returned an input"


@pytest.mark.parametrize("name", deterministic())
def test_leading_dims_are_independent_batches(name):
    function, kwargs, _seq_arg, _, example = build(name, lead=(2, 1, 3))
    out = call(function, kwargs)
    for index in [(0, 0, 0), (1, 0, 2)]:
        single = {key: (value[index] if key in example.batched else value) for key, value in kwargs.items()}
        torch.testing.assert_close(parts(call(function, single)), tuple(o[index] for o in parts(out)),
                                   atol=1e-12, rtol=0)


@pytest.mark.parametrize("name", deterministic())
def test_bfloat16_close_to_float64(name):
    function, kwargs, *_ = build(name, lead=(2,), dtype=torch.bfloat16)
    widened = {key: value.double() if isinstance(value, torch.Tensor) and value.is_floating_point() else value
               for key, value in kwargs.items()}
    got = tuple(out.double() for out in parts(call(function, kwargs)))
    torch.testing.assert_close(got, tuple(out.double() for out in parts(call(function, widened))), atol=0.1, rtol=0.05)


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_non_contiguous_inputs(name):
    function, kwargs, seq_arg, _, _ = build(name, lead=(2, 3))

    def non_contiguous(value):
        if not isinstance(value, torch.Tensor) or value.ndim < 2:
            return value
        return value.transpose(-1, -2).contiguous().transpose(-1, -2)  # same values, transposed strides

    strided = {key: non_contiguous(value) for key, value in kwargs.items()}
    assert not strided[seq_arg].is_contiguous()
    torch.testing.assert_close(call(function, strided), call(function, kwargs), atol=1e-12, rtol=0)


@pytest.mark.parametrize("name", causal())
def test_causal_rows_ignore_future_tokens(name):
    function, kwargs, seq_arg, _, _ = build(name, lead=(2,))
    out = call(function, kwargs)
    for t in range(SEQ - 1):
        changed = kwargs[seq_arg].clone()
        changed[..., t + 1:, :] = torch.randn(changed[..., t + 1:, :].shape, dtype=changed.dtype) * 10
        out_changed = call(function, {**kwargs, seq_arg: changed})
        torch.testing.assert_close(out_changed[..., : t + 1, :], out[..., : t + 1, :], atol=1e-12, rtol=0)
        assert not torch.allclose(out_changed[..., t + 1:, :], out[..., t + 1:, :])


def test_self_attention_is_not_causal():
    function, kwargs, *_ = build("self_attention", lead=(2,))
    changed = kwargs["in_features"].clone()
    changed[..., -1, :] += 1.0
    assert not torch.allclose(function(**{**kwargs, "in_features": changed})[..., 0, :],
                              function(**kwargs)[..., 0, :])


# --- softmax -------------------------------------------------------------------------------------------

def test_softmax_matches_torch_and_is_stable():
    x = torch.randn(3, 4, 5, dtype=torch.float64)
    for dim in (0, 1, -1):
        torch.testing.assert_close(R.run_softmax(x, dim=dim), torch.softmax(x, dim=dim))
    big = torch.tensor([1000.0, 1001.0, -1000.0])
    torch.testing.assert_close(R.run_softmax(big, dim=0), torch.softmax(big, dim=0))
    masked = torch.tensor([0.5, -math.inf, 2.0])
    assert R.run_softmax(masked, dim=0)[1] == 0


def test_softmax_gradient():
    x = torch.randn(2, 4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: R.run_softmax(t, dim=-1), (x,))


# --- masks and scaled dot-product attention ------------------------------------------------------------

def test_causal_mask():
    mask = R.run_causal_mask(4, device="cpu")
    assert mask.dtype == torch.bool and mask.device.type == "cpu"
    assert torch.equal(mask, torch.tril(torch.ones(4, 4)).bool())
    assert mask[2, 1] and not mask[1, 2]  # query 2 may see key 1, query 1 may not see key 2


def test_sdpa_matches_torch_and_scales_by_d_k():
    q, k, v = torch.randn(2, 3, 4, 5), torch.randn(2, 3, 6, 5), torch.randn(2, 3, 6, 9)  # d_k 5, d_v 9
    mask = torch.rand(4, 6) > 0.4
    mask[:, 0] = True
    expected = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    torch.testing.assert_close(R.run_scaled_dot_product_attention(q, k, v, mask), expected)
    float_mask = mask.float()
    torch.testing.assert_close(R.run_scaled_dot_product_attention(q, k, v, float_mask), expected)
    torch.testing.assert_close(R.run_scaled_dot_product_attention(q, k, v),
                               F.scaled_dot_product_attention(q, k, v))


def test_sdpa_gradient_with_mask():
    q, k, v = (torch.randn(2, 4, 3, dtype=torch.float64, requires_grad=True) for _ in range(3))
    mask = R.run_causal_mask(4)
    assert torch.autograd.gradcheck(
        lambda q, k, v: R.run_scaled_dot_product_attention(q, k, v, mask), (q, k, v))


# --- dropout -------------------------------------------------------------------------------------------

def test_dropout():
    x = torch.randn(200, 300)
    out = R.run_dropout(x, p=0.25, generator=torch.Generator().manual_seed(1))
    kept = out != 0
    assert abs(kept.float().mean().item() - 0.75) < 0.01
    torch.testing.assert_close(out[kept], x[kept] / 0.75)
    again = R.run_dropout(x, p=0.25, generator=torch.Generator().manual_seed(1))
    assert torch.equal(out, again)

    uniform = torch.rand(x.shape, generator=torch.Generator().manual_seed(1), dtype=x.dtype)
    assert torch.equal(kept, uniform >= 0.25)  # the documented draw

    assert torch.equal(R.run_dropout(x, p=0.0), x)
    assert torch.equal(R.run_dropout(x, p=1.0), torch.zeros_like(x))
    evaluation = R.run_dropout(x, p=0.5, training=False)
    assert torch.equal(evaluation, x) and evaluation.data_ptr() != x.data_ptr()
    with pytest.raises(ValueError):
        R.run_dropout(x, p=1.5)


# --- multi-head ----------------------------------------------------------------------------------------

def test_gpt2_matches_seed000_causal_self_attention():
    # Seed 000 §3: nanoGPT's CausalSelfAttention, written out with torch's building blocks.
    torch.manual_seed(0)
    n_embd, n_head, seq = 8, 2, 5
    c_attn, c_proj = nn.Linear(n_embd, 3 * n_embd), nn.Linear(n_embd, n_embd)
    x = torch.rand(2, seq, n_embd)
    with torch.no_grad():
        q, k, v = c_attn(x).split(n_embd, dim=2)
        q, k, v = (t.view(2, seq, n_head, n_embd // n_head).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        expected = c_proj(y.transpose(1, 2).contiguous().view(2, seq, n_embd))
        out = R.run_gpt2_causal_self_attention(n_embd, n_head, c_attn.weight, c_attn.bias,
                                                       c_proj.weight, c_proj.bias, x)
    torch.testing.assert_close(out, expected)


def test_multihead_with_one_head_is_causal_attention_plus_projection():
    _, kwargs, *_ = build("multihead_self_attention", lead=(2,))
    kwargs.update(num_heads=1)
    head = R.run_causal_attention(D_IN, D_MODEL, kwargs["q_proj_weight"], kwargs["k_proj_weight"],
                                          kwargs["v_proj_weight"], kwargs["in_features"])
    expected = F.linear(head, kwargs["o_proj_weight"], kwargs["o_proj_bias"])
    torch.testing.assert_close(R.run_multihead_self_attention(**kwargs), expected)


# --- RoPE ----------------------------------------------------------------------------------------------

def test_rope_preserves_norms_and_position_zero_is_identity():
    x = torch.randn(3, 7, 16, dtype=torch.float64)
    positions = torch.arange(7)
    out = R.run_rope(16, 10000.0, 32, x, positions)
    torch.testing.assert_close(out.norm(dim=-1), x.norm(dim=-1))
    pairs, out_pairs = x.unflatten(-1, (8, 2)), out.unflatten(-1, (8, 2))  # (3, 7, 8, 2)
    torch.testing.assert_close(out_pairs.norm(dim=-1), pairs.norm(dim=-1))  # each pair is rotated
    torch.testing.assert_close(out[:, 0], x[:, 0])


def test_rope_first_pair_by_hand():
    x = torch.zeros(1, 4, dtype=torch.float64)
    x[0, 0] = 1.0  # (x0, x1) = (1, 0), frequency theta^0 = 1: rotated by angle p
    out = R.run_rope(4, 10000.0, 8, x, torch.tensor([3]))
    torch.testing.assert_close(out[0, :2], torch.tensor([math.cos(3), math.sin(3)], dtype=torch.float64))


def test_rope_scores_depend_on_relative_position():
    q, k = torch.randn(16, dtype=torch.float64), torch.randn(16, dtype=torch.float64)

    def score(m, n):
        rotated_q = R.run_rope(16, 10000.0, 64, q[None], torch.tensor([m]))
        rotated_k = R.run_rope(16, 10000.0, 64, k[None], torch.tensor([n]))
        return (rotated_q * rotated_k).sum()

    torch.testing.assert_close(score(5, 2), score(13, 10))
    torch.testing.assert_close(score(0, 0), (q * k).sum())


def test_rope_multihead_defaults_and_position_zero():
    _, kwargs, *_ = build("multihead_self_attention_with_rope", lead=(2,))
    function = R.run_multihead_self_attention_with_rope
    default = function(**{**kwargs, "token_positions": None})
    torch.testing.assert_close(default, function(**{**kwargs, "token_positions": torch.arange(SEQ)}))
    batched = torch.arange(SEQ).expand(2, SEQ)  # (batch, seq) positions broadcast over heads
    torch.testing.assert_close(default, function(**{**kwargs, "token_positions": batched}))

    # All positions 0: no rotation, so it is plain multi-head self-attention.
    zeros = function(**{**kwargs, "token_positions": torch.zeros(SEQ, dtype=torch.long)})
    plain_kwargs = {key: kwargs[key] for key in ("d_model", "num_heads", "q_proj_weight", "k_proj_weight",
                                                 "v_proj_weight", "o_proj_weight", "in_features")}
    torch.testing.assert_close(zeros, R.run_multihead_self_attention(**plain_kwargs))


def test_rope_bfloat16_angles_are_computed_in_float32():
    # Large positions: angles computed in bfloat16 would be off by radians; only the final cast rounds.
    x = torch.randn(2, 6, 16).to(torch.bfloat16)
    positions = torch.tensor([0, 1, 250, 999, 1000, 4095])
    out = R.run_rope(16, 10000.0, 4096, x, positions)
    expected = R.run_rope(16, 10000.0, 4096, x.double(), positions)
    assert out.dtype == torch.bfloat16
    torch.testing.assert_close(out.double(), expected, atol=2e-2, rtol=1e-2)


def test_rope_multihead_positions_per_batch_entry():
    # Batch 3 (not equal to the number of heads): positions (batch, seq) must line up with the batch axis.
    _, kwargs, *_ = build("multihead_self_attention_with_rope", lead=(3,))
    positions = torch.tensor([[0, 1, 2, 3, 4], [7, 3, 9, 1, 0], [15, 14, 13, 12, 11]])
    out = R.run_multihead_self_attention_with_rope(**{**kwargs, "token_positions": positions})
    for b in range(3):
        single = {**kwargs, "in_features": kwargs["in_features"][b], "token_positions": positions[b]}
        torch.testing.assert_close(R.run_multihead_self_attention_with_rope(**single), out[b])


# --- FlashAttention and the backward pass (assignment "modern") -----------------------------------------

def _bottom_right_mask(n_q, n_k):
    return torch.ones(n_q, n_k, dtype=torch.bool).tril(diagonal=n_k - n_q)


@pytest.mark.parametrize("is_causal", [False, True])
@pytest.mark.parametrize("blocks", [(16, 16), (1, 1), (5, 3), (64, 2)])
def test_flash_matches_torch_attention_and_logsumexp(is_causal, blocks):
    q, k, v = torch.randn(2, 3, 13, 8), torch.randn(2, 3, 21, 8), torch.randn(2, 3, 21, 5)  # 13 queries, 21 keys
    mask = _bottom_right_mask(13, 21) if is_causal else None
    out, lse = R.run_flash_attention(q, k, v, is_causal=is_causal, block_q=blocks[0], block_k=blocks[1])
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, attn_mask=mask))
    scores = (q @ k.mT / math.sqrt(8)).masked_fill(~mask if is_causal else torch.zeros((), dtype=torch.bool), -math.inf)
    torch.testing.assert_close(lse, torch.logsumexp(scores, dim=-1))
    assert lse.dtype == torch.float32


def test_flash_keeps_its_statistics_in_float32_for_bfloat16():
    q, k, v = (torch.randn(1, 300, 16, dtype=torch.float64) for _ in range(3))
    out, lse = R.run_flash_attention(q.bfloat16(), k.bfloat16(), v.bfloat16(), block_q=64, block_k=32)
    out64, lse64 = R.run_flash_attention(q.bfloat16().double(), k.bfloat16().double(), v.bfloat16().double())
    assert out.dtype == torch.bfloat16 and lse.dtype == torch.float32
    torch.testing.assert_close(lse.double(), lse64.double(), atol=1e-5, rtol=1e-6)  # only float32 rounding
    torch.testing.assert_close(out.double(), out64, atol=1e-2, rtol=1e-2)


@pytest.mark.slow  # 12288 tokens in tiles: seconds of arithmetic
def test_flash_never_holds_more_than_a_tile():
    from attnlab.core.memory import tensor_budget

    x = torch.randn(1, 4096, 16)  # scores: 64 MB; a 256 x 256 tile: 256 KB
    with tensor_budget("flash_attention", 1):
        out, _ = R.run_flash_attention(x, x, x, is_causal=True, block_q=256, block_k=256)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(x, x, x, is_causal=True), atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("shapes,is_causal", [((5, 5, 8, 8), True), ((4, 9, 8, 3), True), ((6, 11, 16, 4), False)])
def test_attention_backward_equals_autograd(shapes, is_causal):
    n_q, n_k, d_k, d_v = shapes
    q, k = torch.randn(2, n_q, d_k, dtype=torch.float64), torch.randn(2, n_k, d_k, dtype=torch.float64)
    v, grad_out = torch.randn(2, n_k, d_v, dtype=torch.float64), torch.randn(2, n_q, d_v, dtype=torch.float64)
    leaves = [t.clone().requires_grad_(True) for t in (q, k, v)]
    mask = _bottom_right_mask(n_q, n_k) if is_causal else None
    expected = torch.autograd.grad(F.scaled_dot_product_attention(*leaves, attn_mask=mask), leaves, grad_out)
    got = R.run_attention_backward(q, k, v, grad_out, is_causal=is_causal)
    torch.testing.assert_close(got, expected, atol=1e-12, rtol=1e-10)
