"""The tensors printed in the course notes (/work/shared/seeds), reproduced through the run_* API.

Each test names the seed and section it comes from. Seed 001 was run with MindSpore, whose random numbers
torch cannot reproduce, so its tests start from printed tensors (scores, weights) instead of from seeds.
Printed values are rounded (4 decimals in seeds 000/002, 8 significant digits in seed 001); the
tolerances below are set by that rounding.
"""

import math

import pytest
import torch
from torch import nn

from reference.attention import run_causal_mask, run_scaled_dot_product_attention, run_simple_self_attention
from reference.multihead import run_multihead_attention_wrapper, run_multihead_self_attention
from reference.softmax import run_softmax

# "Your journey starts with one step", one 3-d embedding per token (seed 001 §3.3.1, seed 002).
INPUTS = torch.tensor(
    [[0.43, 0.15, 0.89],  # Your
     [0.55, 0.87, 0.66],  # journey
     [0.57, 0.85, 0.64],  # starts
     [0.22, 0.58, 0.33],  # with
     [0.77, 0.25, 0.10],  # one
     [0.05, 0.80, 0.55]]  # step
)
BATCH = torch.stack((INPUTS, INPUTS), dim=0)  # (2, 6, 3)


# ---------------------------------------------------------------------------------------------------
# Seed 002: MultiHeadAttentionWrapper and MultiHeadAttention (torch, torch.manual_seed(123)).

WRAPPER_OUTPUT = torch.tensor(
    [[-0.5740, 0.2216],
     [-0.7320, 0.0155],
     [-0.7774, -0.0546],
     [-0.6979, -0.0817],
     [-0.6538, -0.0957],
     [-0.6424, -0.1065]]
)

MULTIHEAD_OUTPUT = torch.tensor(
    [[0.3190, 0.4858],
     [0.2943, 0.3897],
     [0.2856, 0.3593],
     [0.2693, 0.3873],
     [0.2639, 0.3928],
     [0.2575, 0.4028]]
)


def test_seed002_multihead_attention_wrapper():
    # Seed 002 方案一: MultiHeadAttentionWrapper(d_in=3, d_out=1, num_heads=2) after torch.manual_seed(123).
    # Each CausalAttention head creates W_query, W_key, W_value in that order.
    torch.manual_seed(123)
    heads = [[nn.Linear(3, 1, bias=False) for _ in range(3)] for _ in range(2)]  # [[W_q, W_k, W_v], ...]
    q, k, v = (torch.stack([head[i].weight.detach() for head in heads]) for i in range(3))  # (2, 1, 3)

    out = run_multihead_attention_wrapper(d_in=3, d_out=1, num_heads=2, q_proj_weights=q,
                                          k_proj_weights=k, v_proj_weights=v, in_features=BATCH)

    assert out.shape == (2, 6, 2)
    for batch_entry in out:
        torch.testing.assert_close(batch_entry, WRAPPER_OUTPUT, atol=1e-4, rtol=0)


def test_seed002_multihead_attention():
    # Seed 002 方案二: MultiHeadAttention(d_in=3, d_out=2, num_heads=2) after torch.manual_seed(123):
    # W_query, W_key, W_value (no bias), then out_proj = nn.Linear(2, 2) with bias.
    torch.manual_seed(123)
    w_query, w_key, w_value = (nn.Linear(3, 2, bias=False) for _ in range(3))
    out_proj = nn.Linear(2, 2)

    with torch.no_grad():
        out = run_multihead_self_attention(
            d_model=2, num_heads=2, q_proj_weight=w_query.weight, k_proj_weight=w_key.weight,
            v_proj_weight=w_value.weight, o_proj_weight=out_proj.weight, in_features=BATCH,
            o_proj_bias=out_proj.bias,
        )

    assert out.shape == (2, 6, 2)
    for batch_entry in out:
        torch.testing.assert_close(batch_entry, MULTIHEAD_OUTPUT, atol=1e-4, rtol=0)


# ---------------------------------------------------------------------------------------------------
# Seed 001 §3.3: simple self-attention on the same six tokens (MindSpore, float32).

SCORES = torch.tensor(  # inputs @ inputs.T
    [[0.9994999, 0.95440006, 0.9422, 0.4753, 0.4576, 0.63100004],
     [0.95440006, 1.4950001, 1.4754001, 0.8434, 0.707, 1.0865],
     [0.9422, 1.4754001, 1.457, 0.8296, 0.7154, 1.0605],
     [0.4753, 0.8434, 0.8296, 0.49369997, 0.34739998, 0.6565],
     [0.4576, 0.707, 0.7154, 0.34739998, 0.66539997, 0.2935],
     [0.63100004, 1.0865, 1.0605, 0.6565, 0.2935, 0.94500005]]
)

SIMPLE_WEIGHTS = torch.tensor(  # softmax(attn_scores, axis=-1)
    [[0.20983472, 0.20058143, 0.1981492, 0.12422821, 0.12204872, 0.14515765],
     [0.13854758, 0.2378913, 0.23327403, 0.1239916, 0.10818186, 0.15811361],
     [0.1390076, 0.23692146, 0.23260196, 0.1242044, 0.11080021, 0.15646443],
     [0.1435269, 0.20739442, 0.20455202, 0.14619222, 0.12629524, 0.1720392],
     [0.15261085, 0.19583867, 0.19749065, 0.13668668, 0.18785892, 0.12951429],
     [0.13847117, 0.21836372, 0.21275942, 0.14204757, 0.09880637, 0.18955176]]
)

ALL_CONTEXT_VECS = torch.tensor(  # attn_weights @ inputs
    [[0.44205937, 0.5930985, 0.578989],
     [0.44186574, 0.651482, 0.56830883],
     [0.44312754, 0.6495946, 0.5670731],
     [0.43038973, 0.6298281, 0.55102706],
     [0.46710178, 0.5909928, 0.5265966],
     [0.41772446, 0.6503232, 0.56453526]]
)


def test_seed001_3_3_1_naive_softmax_row():
    # Seed 001 §3.3.1: softmax_naive(attn_scores_2) over axis 0 for the query "journey".
    scores_2 = torch.tensor([0.95440006, 1.4950001, 1.4754001, 0.8434, 0.707, 1.0865])
    expected = torch.tensor([0.13854758, 0.23789132, 0.23327403, 0.1239916, 0.10818187, 0.1581136])

    weights = run_softmax(scores_2, dim=0)

    torch.testing.assert_close(weights, expected, atol=1e-6, rtol=0)
    torch.testing.assert_close(weights.sum(), torch.tensor(1.0))


def test_seed001_3_3_2_scores_through_softmax():
    # Seed 001 §3.3.2: the printed score matrix, softmax over the last axis, gives the printed weights.
    torch.testing.assert_close(INPUTS @ INPUTS.T, SCORES, atol=1e-6, rtol=0)
    torch.testing.assert_close(run_softmax(SCORES, dim=-1), SIMPLE_WEIGHTS, atol=1e-6, rtol=0)


def test_seed001_3_3_2_all_context_vectors():
    # Seed 001 §3.3.2: all_context_vecs = softmax(inputs @ inputs.T) @ inputs.
    torch.testing.assert_close(run_simple_self_attention(INPUTS), ALL_CONTEXT_VECS, atol=1e-6, rtol=0)
    batched = run_simple_self_attention(BATCH)
    torch.testing.assert_close(batched, torch.stack((ALL_CONTEXT_VECS, ALL_CONTEXT_VECS)), atol=1e-6, rtol=0)


# ---------------------------------------------------------------------------------------------------
# Seed 001 §3.5.1: causal masking of SelfAttention_v2's weights (MindSpore, float32).

UNMASKED_WEIGHTS = torch.tensor(  # softmax(attn_scores / sqrt(2)) before masking
    [[0.17708538, 0.16682708, 0.16690864, 0.16154803, 0.16648889, 0.16114198],
     [0.15290368, 0.16976361, 0.1694357, 0.17110434, 0.16246879, 0.17432387],
     [0.15289992, 0.16963565, 0.16931547, 0.17120253, 0.16261601, 0.17433047],
     [0.1563714, 0.16894543, 0.16870582, 0.17000996, 0.16362132, 0.17234604],
     [0.15662041, 0.16653182, 0.16643864, 0.17168735, 0.1664594, 0.17226237],
     [0.15606658, 0.17026657, 0.16994365, 0.16917174, 0.1620771, 0.17247434]],
    dtype=torch.float64,
)

MASKED_SIMPLE_NORM = torch.tensor(  # (weights * tril) / row sums
    [[1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
     [0.4738741, 0.52612585, 0.0, 0.0, 0.0, 0.0],
     [0.31086633, 0.34489235, 0.34424138, 0.0, 0.0, 0.0],
     [0.23548752, 0.25442338, 0.25406253, 0.2560265, 0.0, 0.0],
     [0.18921505, 0.20118913, 0.20107657, 0.20741759, 0.20110165, 0.0],
     [0.15606658, 0.17026657, 0.16994365, 0.16917174, 0.1620771, 0.17247434]],
    dtype=torch.float64,
)

INF = math.inf
MASKED_SCORES = torch.tensor(  # attn_scores with the upper triangle set to -inf (not yet scaled)
    [[0.14097424, -INF, -INF, -INF, -INF, -INF],
     [-0.10974284, 0.03818224, -INF, -INF, -INF, -INF],
     [-0.11289321, 0.03400017, 0.03132835, -INF, -INF, -INF],
     [-0.0824612, 0.02691678, 0.02490959, 0.03579977, -INF, -INF],
     [-0.13766424, -0.05088637, -0.05167788, -0.00776885, -0.05150147, -INF],
     [-0.05454344, 0.06860979, 0.06592514, 0.05948692, -0.00110114, 0.08682943]]
)

CAUSAL_WEIGHTS = torch.tensor(  # softmax(masked / sqrt(2))
    [[1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
     [0.47387412, 0.5261259, 0.0, 0.0, 0.0, 0.0],
     [0.31086633, 0.34489232, 0.34424138, 0.0, 0.0, 0.0],
     [0.2354875, 0.2544234, 0.25406256, 0.2560265, 0.0, 0.0],
     [0.18921505, 0.20118913, 0.20107657, 0.20741759, 0.20110166, 0.0],
     [0.15606658, 0.17026657, 0.16994365, 0.16917174, 0.1620771, 0.17247434]]
)


def test_seed001_3_5_1_mask_then_renormalise():
    # Seed 001 §3.5.1: zeroing the future with the causal mask and renormalising each row gives the
    # printed masked_simple_norm (checks the data and the orientation of run_causal_mask).
    masked = UNMASKED_WEIGHTS * run_causal_mask(6)  # bool mask promotes to float64
    renormalised = masked / masked.sum(dim=-1, keepdim=True)
    torch.testing.assert_close(renormalised, MASKED_SIMPLE_NORM, atol=1e-6, rtol=0)


def test_seed001_3_5_1_softmax_of_minus_inf_scores():
    # Seed 001 §3.5.1: softmax of the -inf-masked scores (scaled by sqrt(d_k), d_k = 2) gives the same
    # weights as masking and renormalising.
    weights = run_softmax(MASKED_SCORES / math.sqrt(2), dim=-1)
    torch.testing.assert_close(weights, CAUSAL_WEIGHTS, atol=1e-6, rtol=0)
    torch.testing.assert_close(weights.double(), MASKED_SIMPLE_NORM, atol=1e-6, rtol=0)
    assert torch.equal(weights == 0, ~run_causal_mask(6))


# ---------------------------------------------------------------------------------------------------
# Seed 000 §2: uniform causal averaging, wei = softmax(zeros masked with tril) and out = wei @ v.

TRIL = torch.tril(torch.ones(8, 8))

WEI_SOFTMAX = torch.tensor(
    [[1.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],
     [0.5000, 0.5000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],
     [0.3333, 0.3333, 0.3333, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],
     [0.2500, 0.2500, 0.2500, 0.2500, 0.0000, 0.0000, 0.0000, 0.0000],
     [0.2000, 0.2000, 0.2000, 0.2000, 0.2000, 0.0000, 0.0000, 0.0000],
     [0.1667, 0.1667, 0.1667, 0.1667, 0.1667, 0.1667, 0.0000, 0.0000],
     [0.1429, 0.1429, 0.1429, 0.1429, 0.1429, 0.1429, 0.1429, 0.0000],
     [0.1250, 0.1250, 0.1250, 0.1250, 0.1250, 0.1250, 0.1250, 0.1250]]
)

V0 = torch.tensor(
    [[1.2549, -0.3037],
     [-0.4198, 1.5528],
     [1.0640, -0.3529],
     [-1.7614, 0.2654],
     [1.2936, -1.0602],
     [-1.3749, -0.0089],
     [1.3363, -0.9032],
     [0.3539, -1.3199]]
)

OUT0 = torch.tensor(
    [[1.2549, -0.3037],
     [0.4175, 0.6245],
     [0.6330, 0.2987],
     [0.0344, 0.2904],
     [0.2863, 0.0203],
     [0.0094, 0.0154],
     [0.1989, -0.1158],
     [0.2183, -0.2663]]
)


def test_seed000_tril_is_the_causal_mask():
    # Seed 000 §2: tril = torch.tril(torch.ones(T, T)) is run_causal_mask(T) as 0/1.
    assert torch.equal(run_causal_mask(8), TRIL.bool())


def test_seed000_uniform_causal_weights():
    # Seed 000 §2: all-zero scores masked with tril give the uniform causal average. With V = identity
    # the attention output is the weight matrix itself.
    zeros = torch.zeros(8, 1)
    weights = run_scaled_dot_product_attention(Q=zeros, K=zeros, V=torch.eye(8), mask=run_causal_mask(8))
    torch.testing.assert_close(weights, WEI_SOFTMAX, atol=1e-4, rtol=0)
    # The float 0/1 mask of the seed works the same way as the bool mask.
    float_mask = run_scaled_dot_product_attention(Q=zeros, K=zeros, V=torch.eye(8), mask=TRIL)
    torch.testing.assert_close(float_mask, weights, atol=0, rtol=0)


def test_seed000_out_is_the_running_mean_of_v():
    # Seed 000 §2: out[0] = wei_softmax @ v[0], the mean of v over positions 0..t.
    zeros = torch.zeros(8, 1)
    out = run_scaled_dot_product_attention(Q=zeros, K=zeros, V=V0, mask=run_causal_mask(8))
    torch.testing.assert_close(out, OUT0, atol=1e-4, rtol=0)
    assert torch.equal(out[0], V0[0])  # the seed's `v[0][0][0] == out[0][0][0]`


# ---------------------------------------------------------------------------------------------------
# Seed 003: a MultiHeadAttention that forgets to move the head axis in front of the sequence axis.

def seed003_multihead_attention(x, q_weight, k_weight, v_weight, o_weight, o_bias, num_heads,
                                transpose_heads=False):
    """Seed 003's MultiHeadAttention.forward (non-causal; q/k/v without bias), bug included by default.

    Seed 003 reshapes Q, K, V to (batch, seq, heads, head_dim) and multiplies Q @ Kᵀ right away, so the
    last two axes are (heads, head_dim): the scores are (batch, seq, heads, heads) and every token
    attends across its own heads instead of across the sequence. The final .view back to
    (batch, seq, hidden) hides the mistake because the shapes still fit. transpose_heads=True adds the
    missing transposes (the fix).
    """
    batch, seq_len, hidden = x.shape
    head_dim = hidden // num_heads
    q = (x @ q_weight.T).view(batch, seq_len, num_heads, head_dim)  # (b, seq, heads, hd)
    k = (x @ k_weight.T).view(batch, seq_len, num_heads, head_dim)
    v = (x @ v_weight.T).view(batch, seq_len, num_heads, head_dim)
    if transpose_heads:
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))  # (b, heads, seq, hd)
    scores = q @ k.transpose(-1, -2)  # bug: (b, seq, heads, heads); fixed: (b, heads, seq, seq)
    weights = torch.softmax(scores / math.sqrt(head_dim), dim=-1)
    out = weights @ v
    if transpose_heads:
        out = out.transpose(1, 2)  # (b, seq, heads, hd)
    out = out.contiguous().view(batch, seq_len, hidden)  # (b, seq, hidden)
    return out @ o_weight.T + o_bias


@pytest.fixture
def seed003_case():
    generator = torch.Generator().manual_seed(3)
    x = torch.randn(2, 6, 4, generator=generator, dtype=torch.float64)  # seq_len 6, hidden 4
    weights = [torch.randn(4, 4, generator=generator, dtype=torch.float64) for _ in range(4)]
    bias = torch.randn(4, generator=generator, dtype=torch.float64)
    return x, weights, bias


def test_seed003_missing_head_transpose_changes_the_output(seed003_case):
    x, (wq, wk, wv, wo), bias = seed003_case
    buggy = seed003_multihead_attention(x, wq, wk, wv, wo, bias, num_heads=2)
    expected = run_multihead_self_attention(d_model=4, num_heads=2, q_proj_weight=wq, k_proj_weight=wk,
                                            v_proj_weight=wv, o_proj_weight=wo, in_features=x,
                                            o_proj_bias=bias)
    assert (buggy - expected).abs().max() > 1e-2

    # The last token sees every token with or without a causal mask, so there the fixed seed code
    # agrees with run_multihead_self_attention and the buggy code does not.
    fixed = seed003_multihead_attention(x, wq, wk, wv, wo, bias, num_heads=2, transpose_heads=True)
    torch.testing.assert_close(fixed[:, -1], expected[:, -1])
    assert not torch.allclose(buggy[:, -1], expected[:, -1], atol=1e-2)


def test_seed003_bug_never_mixes_tokens(seed003_case):
    # Symptom of the bug: a token's output does not depend on any other token.
    x, (wq, wk, wv, wo), bias = seed003_case
    changed = x.clone()
    changed[:, :-1] += 1.0  # change every token except the last
    buggy_last = seed003_multihead_attention(x, wq, wk, wv, wo, bias, num_heads=2)[:, -1]
    buggy_changed_last = seed003_multihead_attention(changed, wq, wk, wv, wo, bias, num_heads=2)[:, -1]
    torch.testing.assert_close(buggy_changed_last, buggy_last)

    kwargs = {"d_model": 4, "num_heads": 2, "q_proj_weight": wq, "k_proj_weight": wk, "v_proj_weight": wv,
                  "o_proj_weight": wo, "o_proj_bias": bias}
    correct_last = run_multihead_self_attention(in_features=x, **kwargs)[:, -1]
    correct_changed_last = run_multihead_self_attention(in_features=changed, **kwargs)[:, -1]
    assert not torch.allclose(correct_changed_last, correct_last, atol=1e-3)
