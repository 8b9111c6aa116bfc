"""Quick sanity checks of the reference package: shapes, dtypes, leading dimensions, purity, masking.

Every batched exercise is described once in CASES (how to build its keyword arguments for given leading
dimensions and dtype, and the output's last two dimensions); the generic tests run over that table.
"""

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import reference

SEQ, D_IN, D_OUT, D_MODEL, HEADS = 5, 6, 4, 8, 2
LEADING = [(), (2,), (2, 1, 3)]
DTYPES = [torch.float32, torch.float64, torch.bfloat16]


def randn(generator, *shape, dtype):
    return torch.randn(*shape, generator=generator, dtype=torch.float64).to(dtype)


def softmax_case(g, lead, dtype):
    return {"in_features": randn(g, *lead, SEQ, D_IN, dtype=dtype), "dim": -1}, D_IN


def simple_case(g, lead, dtype):
    return {"inputs": randn(g, *lead, SEQ, D_IN, dtype=dtype)}, D_IN


def single_head_case(g, lead, dtype):
    kwargs = {"d_in": D_IN, "d_out": D_OUT, "in_features": randn(g, *lead, SEQ, D_IN, dtype=dtype)}
    for name in "qkv":
        kwargs[f"{name}_proj_weight"] = randn(g, D_OUT, D_IN, dtype=dtype)
        kwargs[f"{name}_proj_bias"] = randn(g, D_OUT, dtype=dtype)
    return kwargs, D_OUT


def dropout_case(g, lead, dtype):
    generator = torch.Generator().manual_seed(0)
    return {"in_features": randn(g, *lead, SEQ, D_IN, dtype=dtype), "p": 0.3, "generator": generator}, D_IN


def sdpa_case(g, lead, dtype):
    mask = randn(g, SEQ, SEQ + 2, dtype=torch.float64) > -0.5
    mask[:, 0] = True  # every query may attend to at least one key
    kwargs = {
        "Q": randn(g, *lead, SEQ, 3, dtype=dtype),
        "K": randn(g, *lead, SEQ + 2, 3, dtype=dtype),
        "V": randn(g, *lead, SEQ + 2, 7, dtype=dtype),  # d_v = 7 differs from d_k = 3
        "mask": mask,
    }
    return kwargs, 7


def wrapper_case(g, lead, dtype):
    kwargs = {f"{name}_proj_weights": randn(g, HEADS, D_OUT, D_IN, dtype=dtype) for name in "qkv"}
    kwargs.update(d_in=D_IN, d_out=D_OUT, num_heads=HEADS)
    kwargs["in_features"] = randn(g, *lead, SEQ, D_IN, dtype=dtype)
    return kwargs, HEADS * D_OUT


def multihead_case(g, lead, dtype):
    kwargs = {f"{name}_proj_weight": randn(g, D_MODEL, D_IN, dtype=dtype) for name in "qkv"}
    kwargs.update(d_model=D_MODEL, num_heads=HEADS)
    kwargs["o_proj_weight"] = randn(g, D_MODEL, D_MODEL, dtype=dtype)
    kwargs["in_features"] = randn(g, *lead, SEQ, D_IN, dtype=dtype)
    kwargs["o_proj_bias"] = randn(g, D_MODEL, dtype=dtype)
    return kwargs, D_MODEL


def gpt2_case(g, lead, dtype):
    kwargs = {
        "n_embd": D_MODEL,
        "n_head": HEADS,
        "c_attn_weight": randn(g, 3 * D_MODEL, D_MODEL, dtype=dtype),
        "c_attn_bias": randn(g, 3 * D_MODEL, dtype=dtype),
        "c_proj_weight": randn(g, D_MODEL, D_MODEL, dtype=dtype),
        "c_proj_bias": randn(g, D_MODEL, dtype=dtype),
        "in_features": randn(g, *lead, SEQ, D_MODEL, dtype=dtype),
    }
    return kwargs, D_MODEL


def rope_case(g, lead, dtype):
    kwargs = {
        "d_k": D_MODEL,
        "theta": 10000.0,
        "max_seq_len": 16,
        "in_query_or_key": randn(g, *lead, SEQ, D_MODEL, dtype=dtype),
        "token_positions": torch.tensor([3, 0, 7, 7, 15]),
    }
    return kwargs, D_MODEL


def rope_multihead_case(g, lead, dtype):
    kwargs, _ = multihead_case(g, lead, dtype)
    del kwargs["o_proj_bias"]
    kwargs.update(max_seq_len=16, theta=10000.0, token_positions=torch.arange(SEQ) * 2)
    return kwargs, D_MODEL


# exercise id -> (function, case builder, name of the argument that carries the sequence)
CASES = {
    "softmax": (reference.run_softmax, softmax_case, "in_features"),
    "simple_self_attention": (reference.run_simple_self_attention, simple_case, "inputs"),
    "self_attention": (reference.run_self_attention, single_head_case, "in_features"),
    "causal_attention": (reference.run_causal_attention, single_head_case, "in_features"),
    "dropout": (reference.run_dropout, dropout_case, "in_features"),
    "scaled_dot_product_attention": (reference.run_scaled_dot_product_attention, sdpa_case, "Q"),
    "multihead_attention_wrapper": (reference.run_multihead_attention_wrapper, wrapper_case, "in_features"),
    "multihead_self_attention": (reference.run_multihead_self_attention, multihead_case, "in_features"),
    "gpt2_causal_self_attention": (reference.run_gpt2_causal_self_attention, gpt2_case, "in_features"),
    "rope": (reference.run_rope, rope_case, "in_query_or_key"),
    "multihead_self_attention_with_rope": (reference.run_multihead_self_attention_with_rope,
                                           rope_multihead_case, "in_features"),
}
DETERMINISTIC = [name for name in CASES if name != "dropout"]
CAUSAL = ["causal_attention", "multihead_attention_wrapper", "multihead_self_attention",
          "gpt2_causal_self_attention", "multihead_self_attention_with_rope"]


def build(name, lead=(), dtype=torch.float64, seed=0):
    function, make_case, seq_arg = CASES[name]
    kwargs, last_dim = make_case(torch.Generator().manual_seed(seed), lead, dtype)
    return function, kwargs, seq_arg, last_dim


def call(function, kwargs):
    """Call by keyword; a fresh generator state for dropout so repeated calls draw the same numbers."""
    if isinstance(kwargs.get("generator"), torch.Generator):
        kwargs = {**kwargs, "generator": torch.Generator().manual_seed(0)}
    return function(**kwargs)


def test_all_exports():
    assert sorted(reference.__all__) == sorted(f"run_{name}" for name in [*CASES, "causal_mask"])


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("lead", LEADING, ids=str)
@pytest.mark.parametrize("name", list(CASES))
def test_shape_dtype_and_inputs_untouched(name, lead, dtype):
    function, kwargs, seq_arg, last_dim = build(name, lead, dtype)
    before = {key: value.clone() for key, value in kwargs.items() if isinstance(value, torch.Tensor)}

    out = call(function, kwargs)

    assert out.shape == (*lead, kwargs[seq_arg].shape[-2], last_dim)
    assert out.dtype == dtype
    assert torch.isfinite(out).all()
    for key, value in before.items():
        assert torch.equal(kwargs[key], value), f"{name} modified its argument {key}"
    tensors = [value for value in kwargs.values() if isinstance(value, torch.Tensor)]
    assert all(out.data_ptr() != value.data_ptr() for value in tensors), "returned an input, not a new tensor"


@pytest.mark.parametrize("name", DETERMINISTIC)
def test_leading_dims_are_independent_batches(name):
    function, kwargs, _seq_arg, _ = build(name, lead=(2, 1, 3))
    out = call(function, kwargs)
    for index in [(0, 0, 0), (1, 0, 2)]:
        single = {key: (value[index] if key in ("in_features", "inputs", "Q", "K", "V", "in_query_or_key")
                        else value) for key, value in kwargs.items()}
        torch.testing.assert_close(call(function, single), out[index], atol=1e-12, rtol=0)


@pytest.mark.parametrize("name", DETERMINISTIC)
def test_bfloat16_close_to_float64(name):
    function, kwargs, _, _ = build(name, lead=(2,), dtype=torch.bfloat16)
    widened = {key: value.double() if isinstance(value, torch.Tensor) and value.is_floating_point() else value
               for key, value in kwargs.items()}
    torch.testing.assert_close(call(function, kwargs).double(), call(function, widened), atol=0.1, rtol=0.05)


@pytest.mark.parametrize("name", list(CASES))
def test_non_contiguous_inputs(name):
    function, kwargs, _, _ = build(name, lead=(2, 3))

    def non_contiguous(value):
        if not isinstance(value, torch.Tensor) or value.ndim < 2:
            return value
        return value.transpose(-1, -2).contiguous().transpose(-1, -2)  # same values, transposed strides

    strided = {key: non_contiguous(value) for key, value in kwargs.items()}
    assert not strided[CASES[name][2]].is_contiguous()
    torch.testing.assert_close(call(function, strided), call(function, kwargs), atol=1e-12, rtol=0)


@pytest.mark.parametrize("name", CAUSAL)
def test_causal_rows_ignore_future_tokens(name):
    function, kwargs, seq_arg, _ = build(name, lead=(2,))
    out = call(function, kwargs)
    for t in range(SEQ - 1):
        changed = kwargs[seq_arg].clone()
        changed[..., t + 1:, :] = torch.randn(changed[..., t + 1:, :].shape, dtype=changed.dtype) * 10
        out_changed = call(function, {**kwargs, seq_arg: changed})
        torch.testing.assert_close(out_changed[..., : t + 1, :], out[..., : t + 1, :], atol=1e-12, rtol=0)
        assert not torch.allclose(out_changed[..., t + 1:, :], out[..., t + 1:, :])


def test_self_attention_is_not_causal():
    function, kwargs, _, _ = build("self_attention", lead=(2,))
    changed = kwargs["in_features"].clone()
    changed[..., -1, :] += 1.0
    assert not torch.allclose(function(**{**kwargs, "in_features": changed})[..., 0, :],
                              function(**kwargs)[..., 0, :])


# --- softmax -------------------------------------------------------------------------------------------

def test_softmax_matches_torch_and_is_stable():
    x = torch.randn(3, 4, 5, dtype=torch.float64)
    for dim in (0, 1, -1):
        torch.testing.assert_close(reference.run_softmax(x, dim=dim), torch.softmax(x, dim=dim))
    big = torch.tensor([1000.0, 1001.0, -1000.0])
    torch.testing.assert_close(reference.run_softmax(big, dim=0), torch.softmax(big, dim=0))
    masked = torch.tensor([0.5, -math.inf, 2.0])
    assert reference.run_softmax(masked, dim=0)[1] == 0


def test_softmax_gradient():
    x = torch.randn(2, 4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: reference.run_softmax(t, dim=-1), (x,))


# --- masks and scaled dot-product attention ------------------------------------------------------------

def test_causal_mask():
    mask = reference.run_causal_mask(4, device="cpu")
    assert mask.dtype == torch.bool and mask.device.type == "cpu"
    assert torch.equal(mask, torch.tril(torch.ones(4, 4)).bool())
    assert mask[2, 1] and not mask[1, 2]  # query 2 may see key 1, query 1 may not see key 2


def test_sdpa_matches_torch_and_scales_by_d_k():
    q, k, v = torch.randn(2, 3, 4, 5), torch.randn(2, 3, 6, 5), torch.randn(2, 3, 6, 9)  # d_k 5, d_v 9
    mask = torch.rand(4, 6) > 0.4
    mask[:, 0] = True
    expected = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    torch.testing.assert_close(reference.run_scaled_dot_product_attention(q, k, v, mask), expected)
    float_mask = mask.float()
    torch.testing.assert_close(reference.run_scaled_dot_product_attention(q, k, v, float_mask), expected)
    torch.testing.assert_close(reference.run_scaled_dot_product_attention(q, k, v),
                               F.scaled_dot_product_attention(q, k, v))


def test_sdpa_gradient_with_mask():
    q, k, v = (torch.randn(2, 4, 3, dtype=torch.float64, requires_grad=True) for _ in range(3))
    mask = reference.run_causal_mask(4)
    assert torch.autograd.gradcheck(
        lambda q, k, v: reference.run_scaled_dot_product_attention(q, k, v, mask), (q, k, v))


# --- dropout -------------------------------------------------------------------------------------------

def test_dropout():
    x = torch.randn(200, 300)
    out = reference.run_dropout(x, p=0.25, generator=torch.Generator().manual_seed(1))
    kept = out != 0
    assert abs(kept.float().mean().item() - 0.75) < 0.01
    torch.testing.assert_close(out[kept], x[kept] / 0.75)
    again = reference.run_dropout(x, p=0.25, generator=torch.Generator().manual_seed(1))
    assert torch.equal(out, again)

    uniform = torch.rand(x.shape, generator=torch.Generator().manual_seed(1), dtype=x.dtype)
    assert torch.equal(kept, uniform >= 0.25)  # the documented draw

    assert torch.equal(reference.run_dropout(x, p=0.0), x)
    assert torch.equal(reference.run_dropout(x, p=1.0), torch.zeros_like(x))
    evaluation = reference.run_dropout(x, p=0.5, training=False)
    assert torch.equal(evaluation, x) and evaluation.data_ptr() != x.data_ptr()
    with pytest.raises(ValueError):
        reference.run_dropout(x, p=1.5)


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
        out = reference.run_gpt2_causal_self_attention(n_embd, n_head, c_attn.weight, c_attn.bias,
                                                       c_proj.weight, c_proj.bias, x)
    torch.testing.assert_close(out, expected)


def test_multihead_with_one_head_is_causal_attention_plus_projection():
    _, kwargs, _, _ = build("multihead_self_attention", lead=(2,))
    kwargs.update(num_heads=1)
    head = reference.run_causal_attention(D_IN, D_MODEL, kwargs["q_proj_weight"], kwargs["k_proj_weight"],
                                          kwargs["v_proj_weight"], kwargs["in_features"])
    expected = F.linear(head, kwargs["o_proj_weight"], kwargs["o_proj_bias"])
    torch.testing.assert_close(reference.run_multihead_self_attention(**kwargs), expected)


# --- RoPE ----------------------------------------------------------------------------------------------

def test_rope_preserves_norms_and_position_zero_is_identity():
    x = torch.randn(3, 7, 16, dtype=torch.float64)
    positions = torch.arange(7)
    out = reference.run_rope(16, 10000.0, 32, x, positions)
    torch.testing.assert_close(out.norm(dim=-1), x.norm(dim=-1))
    pairs, out_pairs = x.unflatten(-1, (8, 2)), out.unflatten(-1, (8, 2))  # (3, 7, 8, 2)
    torch.testing.assert_close(out_pairs.norm(dim=-1), pairs.norm(dim=-1))  # each pair is rotated
    torch.testing.assert_close(out[:, 0], x[:, 0])


def test_rope_first_pair_by_hand():
    x = torch.zeros(1, 4, dtype=torch.float64)
    x[0, 0] = 1.0  # (x0, x1) = (1, 0), frequency theta^0 = 1: rotated by angle p
    out = reference.run_rope(4, 10000.0, 8, x, torch.tensor([3]))
    torch.testing.assert_close(out[0, :2], torch.tensor([math.cos(3), math.sin(3)], dtype=torch.float64))


def test_rope_scores_depend_on_relative_position():
    q, k = torch.randn(16, dtype=torch.float64), torch.randn(16, dtype=torch.float64)

    def score(m, n):
        rotated_q = reference.run_rope(16, 10000.0, 64, q[None], torch.tensor([m]))
        rotated_k = reference.run_rope(16, 10000.0, 64, k[None], torch.tensor([n]))
        return (rotated_q * rotated_k).sum()

    torch.testing.assert_close(score(5, 2), score(13, 10))
    torch.testing.assert_close(score(0, 0), (q * k).sum())


def test_rope_multihead_defaults_and_position_zero():
    _, kwargs, _, _ = build("multihead_self_attention_with_rope", lead=(2,))
    function = reference.run_multihead_self_attention_with_rope
    default = function(**{**kwargs, "token_positions": None})
    torch.testing.assert_close(default, function(**{**kwargs, "token_positions": torch.arange(SEQ)}))
    batched = torch.arange(SEQ).expand(2, SEQ)  # (batch, seq) positions broadcast over heads
    torch.testing.assert_close(default, function(**{**kwargs, "token_positions": batched}))

    # All positions 0: no rotation, so it is plain multi-head self-attention.
    zeros = function(**{**kwargs, "token_positions": torch.zeros(SEQ, dtype=torch.long)})
    plain_kwargs = {key: kwargs[key] for key in ("d_model", "num_heads", "q_proj_weight", "k_proj_weight",
                                                 "v_proj_weight", "o_proj_weight", "in_features")}
    torch.testing.assert_close(zeros, reference.run_multihead_self_attention(**plain_kwargs))


def test_rope_bfloat16_angles_are_computed_in_float32():
    # Large positions: angles computed in bfloat16 would be off by radians; only the final cast rounds.
    x = torch.randn(2, 6, 16).to(torch.bfloat16)
    positions = torch.tensor([0, 1, 250, 999, 1000, 4095])
    out = reference.run_rope(16, 10000.0, 4096, x, positions)
    expected = reference.run_rope(16, 10000.0, 4096, x.double(), positions)
    assert out.dtype == torch.bfloat16
    torch.testing.assert_close(out.double(), expected, atol=2e-2, rtol=1e-2)


def test_rope_multihead_positions_per_batch_entry():
    # Batch 3 (not equal to the number of heads): positions (batch, seq) must line up with the batch axis.
    _, kwargs, _, _ = build("multihead_self_attention_with_rope", lead=(3,))
    positions = torch.tensor([[0, 1, 2, 3, 4], [7, 3, 9, 1, 0], [15, 14, 13, 12, 11]])
    out = reference.run_multihead_self_attention_with_rope(**{**kwargs, "token_positions": positions})
    for b in range(3):
        single = {**kwargs, "in_features": kwargs["in_features"][b], "token_positions": positions[b]}
        torch.testing.assert_close(reference.run_multihead_self_attention_with_rope(**single), out[b])
