"""The fused weight split before projecting: `ops.chunk(c_attn_weight, 3, axis=0)` gives W_q, W_k, W_v
(n_embd rows each, in that order) and `ops.chunk(c_attn_bias, 3)` their biases, each applied with
`ops.dense(x, W, b)`; heads by `ops.reshape` + `ops.swapaxes`, an additive causal bias (0 / -inf from
`ops.triu(..., diagonal=1)`), and `ops.softmax`. Correct: row blocks of the fused weight are exactly the q, k
and v projections, and splitting before or after the matmul gives the same numbers."""

import math

import mindspore
from mindspore import ops


def _heads(x, n_head):
    *lead, T, C = x.shape
    return ops.swapaxes(ops.reshape(x, (*lead, T, n_head, C // n_head)), -3, -2)  # (..., nh, T, hs)


def run_gpt2_causal_self_attention(n_embd, n_head, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias,
                                   in_features):
    w_q, w_k, w_v = ops.chunk(c_attn_weight, 3, axis=0)
    b_q, b_k, b_v = ops.chunk(c_attn_bias, 3)
    q = _heads(ops.dense(in_features, w_q, b_q), n_head)
    k = _heads(ops.dense(in_features, w_k, b_k), n_head)
    v = _heads(ops.dense(in_features, w_v, b_v), n_head)
    T = in_features.shape[-2]
    future = ops.triu(ops.ones((T, T), mindspore.bool_), diagonal=1)
    causal_bias = ops.masked_fill(ops.zeros((T, T), in_features.dtype), future, float("-inf"))
    att = ops.matmul(q, ops.swapaxes(k, -2, -1)) / math.sqrt(n_embd // n_head) + causal_bias
    y = ops.matmul(ops.softmax(att, axis=-1), v)  # (..., nh, T, hs)
    y = ops.swapaxes(y, -3, -2)
    y = ops.reshape(y, (*y.shape[:-2], n_embd))
    return ops.dense(y, c_proj_weight, c_proj_bias)
