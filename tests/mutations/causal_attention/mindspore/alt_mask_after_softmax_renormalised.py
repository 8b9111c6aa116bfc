"""Seed 001 §3.5.1's first way: softmax over all keys, multiply by the lower-triangular
`ops.tril(ops.ones(...))`, then renormalise each row with `ops.ReduceSum(keep_dims=True)`. Correct: the
softmax's denominator cancels, so every row is exp(s_ij) over its allowed keys divided by their sum, which is
the masked softmax. Projections with `ops.matmul(x, W.T)` plus the optional biases."""

from mindspore import nn, ops


def run_causal_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                         q_proj_bias=None, k_proj_bias=None, v_proj_bias=None):
    queries = ops.matmul(in_features, q_proj_weight.T)
    keys = ops.matmul(in_features, k_proj_weight.T)
    values = ops.matmul(in_features, v_proj_weight.T)
    if q_proj_bias is not None:
        queries, keys, values = queries + q_proj_bias, keys + k_proj_bias, values + v_proj_bias
    attn_scores = ops.matmul(queries, ops.swapaxes(keys, -2, -1))
    attn_weights = nn.Softmax(axis=-1)(attn_scores / keys.shape[-1] ** 0.5)
    context_length = attn_scores.shape[-1]
    mask_simple = ops.tril(ops.ones((context_length, context_length), in_features.dtype))
    masked_simple = attn_weights * mask_simple
    row_sums = ops.ReduceSum(keep_dims=True)(masked_simple, -1)
    return ops.matmul(masked_simple / row_sums, values)
