"""Seed 001 §3.6.2 moves the heads with `ops.transpose(keys, (0, 2, 1, 3))` and then transposes the keys for
the scores with `(0, 1, 3, 2)`; the student reuses the first permutation for the second, so the scores
multiply queries by keys whose sequence and head axes are swapped, not their last two axes."""

import mindspore
from mindspore import nn, ops

DIAGNOSIS = None


def _dense(weight, bias=None):
    d_out, d_in = weight.shape
    return nn.Dense(d_in, d_out, weight_init=weight, bias_init=bias, has_bias=bias is not None, dtype=weight.dtype)


def run_multihead_self_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                                 in_features, o_proj_bias=None):
    x = in_features.reshape(-1, *in_features.shape[-2:])
    b, num_tokens, _ = x.shape
    head_dim = d_model // num_heads
    keys = ops.reshape(_dense(k_proj_weight)(x), (b, num_tokens, num_heads, head_dim))
    queries = ops.reshape(_dense(q_proj_weight)(x), (b, num_tokens, num_heads, head_dim))
    values = ops.reshape(_dense(v_proj_weight)(x), (b, num_tokens, num_heads, head_dim))
    keys = ops.transpose(keys, (0, 2, 1, 3))
    queries = ops.transpose(queries, (0, 2, 1, 3))
    values = ops.transpose(values, (0, 2, 1, 3))
    keys_transposed = ops.transpose(keys, (0, 2, 1, 3))
    attn_scores = ops.matmul(queries, keys_transposed)
    mask = ops.triu(ops.ones((num_tokens, num_tokens), mindspore.float32), diagonal=1).astype(mindspore.bool_)
    attn_scores = ops.masked_fill(attn_scores, mask, float("-inf"))
    attn_weights = nn.Softmax(axis=-1)(attn_scores / head_dim ** 0.5)
    context_vec = ops.transpose(ops.matmul(attn_weights, values), (0, 2, 1, 3))
    context_vec = ops.reshape(context_vec, (*in_features.shape[:-1], d_model))
    return _dense(o_proj_weight, o_proj_bias)(context_vec)
