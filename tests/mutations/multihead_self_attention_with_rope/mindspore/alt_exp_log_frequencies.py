"""RoPE frequencies by the exp-log identity inside split-head attention: `ops.exp(ops.arange(0, d_k, 2) *
-(math.log(theta) / d_k))` = θ^(−2i/d_k) in float32, heads split with `ops.reshape` and `ops.swapaxes`, the
positions given a head axis so every head rotates by the same angles, and causal attention with
`ops.masked_fill` and `ops.softmax`."""

import math

import mindspore
from mindspore import ops


def _split(x, num_heads):
    *lead, seq, width = x.shape
    return ops.swapaxes(x.reshape(*lead, seq, num_heads, width // num_heads), -3, -2)  # (..., h, seq, d_k)


def _rope(x, positions, theta):
    d_k = x.shape[-1]
    inv_freq = ops.exp(ops.arange(0, d_k, 2, dtype=mindspore.float32) * -(math.log(theta) / d_k))
    angles = positions.astype(mindspore.float32).expand_dims(-1) * inv_freq  # (..., 1, seq, d_k/2)
    cos, sin = ops.cos(angles).astype(x.dtype), ops.sin(angles).astype(x.dtype)
    even, odd = x[..., 0::2], x[..., 1::2]
    return ops.stack((even * cos - odd * sin, even * sin + odd * cos), axis=-1).reshape(x.shape)


def run_multihead_self_attention_with_rope(d_model, num_heads, max_seq_len, theta, q_proj_weight, k_proj_weight,
                                           v_proj_weight, o_proj_weight, in_features, token_positions=None):
    seq = in_features.shape[-2]
    positions = (ops.arange(seq) if token_positions is None else token_positions).expand_dims(-2)  # (..., 1, seq)
    q = _rope(_split(ops.matmul(in_features, q_proj_weight.T), num_heads), positions, theta)
    k = _rope(_split(ops.matmul(in_features, k_proj_weight.T), num_heads), positions, theta)
    v = _split(ops.matmul(in_features, v_proj_weight.T), num_heads)
    future = ops.triu(ops.ones((seq, seq), mindspore.bool_), diagonal=1)
    scores = ops.masked_fill(ops.matmul(q, ops.swapaxes(k, -2, -1)) / math.sqrt(q.shape[-1]), future, float("-inf"))
    heads = ops.swapaxes(ops.matmul(ops.softmax(scores, axis=-1), v), -3, -2)  # (..., seq, h, d_k)
    return ops.matmul(heads.reshape(*heads.shape[:-2], d_model), o_proj_weight.T)
