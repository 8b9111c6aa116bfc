"""A loop over heads in float64, cast back at the end: head h takes rows h·d_k .. (h+1)·d_k − 1 of each
projection weight, rotates its queries and keys pair by pair with the rotation formula
(x_even·cos − x_odd·sin, x_even·sin + x_odd·cos) at angles position·θ^(−2i/d_k), runs causal attention with
an additive −inf bias and a hand-written stable softmax, and the heads are joined with `ops.cat` before the
output projection. Correct: every head uses the same positions and frequencies over its own d_k, values are
not rotated, and float64 angles are more precise than the spec requires."""

import math

import mindspore
from mindspore import ops

F64 = mindspore.float64


def _rope(x, positions, theta):
    d_k = x.shape[-1]
    freqs = theta ** (-ops.arange(0, d_k, 2, dtype=F64) / d_k)  # (d_k/2,)
    angles = positions.astype(F64).expand_dims(-1) * freqs  # (..., seq, d_k/2)
    cos, sin = ops.cos(angles), ops.sin(angles)
    even, odd = x[..., 0::2], x[..., 1::2]
    rotated = ops.stack((even * cos - odd * sin, even * sin + odd * cos), axis=-1)  # (..., seq, d_k/2, 2)
    return rotated.reshape(x.shape)


def run_multihead_self_attention_with_rope(d_model, num_heads, max_seq_len, theta, q_proj_weight, k_proj_weight,
                                           v_proj_weight, o_proj_weight, in_features, token_positions=None):
    x = in_features.astype(F64)
    seq = x.shape[-2]
    positions = ops.arange(seq) if token_positions is None else token_positions
    d_k = d_model // num_heads
    causal_bias = ops.triu(ops.full((seq, seq), float("-inf"), dtype=F64), diagonal=1)  # 0 on and below
    heads = []
    for h in range(num_heads):
        rows = slice(h * d_k, (h + 1) * d_k)
        q = _rope(ops.matmul(x, q_proj_weight[rows].astype(F64).T), positions, theta)
        k = _rope(ops.matmul(x, k_proj_weight[rows].astype(F64).T), positions, theta)
        v = ops.matmul(x, v_proj_weight[rows].astype(F64).T)
        scores = ops.matmul(q, k.swapaxes(-2, -1)) / math.sqrt(d_k) + causal_bias
        exps = ops.exp(scores - scores.max(axis=-1, keepdims=True))
        heads.append(ops.matmul(exps / exps.sum(axis=-1, keepdims=True), v))
    out = ops.matmul(ops.cat(heads, axis=-1), o_proj_weight.astype(F64).T)
    return out.astype(in_features.dtype)
