"""A loop over heads on slices of the weights, computed in float64 and cast back: head h's projections are
rows h·d_k .. (h+1)·d_k − 1 of each weight (`q_proj_weight[h * d_k:(h + 1) * d_k]`), its causal attention
uses `ops.matmul`, a -inf mask from `ops.tril` and a hand-written stable softmax, and the heads are joined with
`ops.cat` before the output projection `ops.matmul(heads, o_proj_weight.T) + bias`. Correct: slicing rows of
W is the same as splitting the projected features into heads, and concatenating heads in order is the merge."""

import math

import mindspore
from mindspore import ops


def _causal_head(q, k, v):
    seq = q.shape[-2]
    scores = ops.matmul(q, k.swapaxes(-2, -1)) / math.sqrt(q.shape[-1])
    allowed = ops.tril(ops.ones((seq, seq), mindspore.bool_))
    scores = ops.masked_fill(scores, ~allowed, float("-inf"))
    exps = ops.exp(scores - scores.max(axis=-1, keepdims=True))
    return ops.matmul(exps / exps.sum(axis=-1, keepdims=True), v)


def run_multihead_self_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                                 in_features, o_proj_bias=None):
    f64 = mindspore.float64
    x = in_features.astype(f64)
    d_k = d_model // num_heads
    heads = []
    for h in range(num_heads):
        rows = slice(h * d_k, (h + 1) * d_k)
        q = ops.matmul(x, q_proj_weight[rows].astype(f64).T)  # (..., seq, d_k)
        k = ops.matmul(x, k_proj_weight[rows].astype(f64).T)
        v = ops.matmul(x, v_proj_weight[rows].astype(f64).T)
        heads.append(_causal_head(q, k, v))
    out = ops.matmul(ops.cat(heads, axis=-1), o_proj_weight.astype(f64).T)  # (..., seq, d_model)
    if o_proj_bias is not None:
        out = out + o_proj_bias.astype(f64)
    return out.astype(in_features.dtype)
