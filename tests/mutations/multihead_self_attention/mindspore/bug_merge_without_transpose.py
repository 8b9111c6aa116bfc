"""Seed 001 §3.6.2's MultiHeadAttention, but the heads are merged by reshaping (..., heads, seq, d_k) straight
to (..., seq, d_model) without first moving the head axis back behind the sequence axis
(`ops.transpose(context_vec, (0, 2, 1, 3))` in the notes), which scrambles tokens and heads."""

import mindspore
from mindspore import nn, ops

DIAGNOSIS = "merge_without_transpose"


def _dense(weight, bias=None):
    d_out, d_in = weight.shape
    return nn.Dense(d_in, d_out, weight_init=weight, bias_init=bias, has_bias=bias is not None, dtype=weight.dtype)


def run_multihead_self_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                                 in_features, o_proj_bias=None):
    *batch, num_tokens, _ = in_features.shape
    head_dim = d_model // num_heads
    split = (*batch, num_tokens, num_heads, head_dim)
    keys = ops.reshape(_dense(k_proj_weight)(in_features), split).swapaxes(-3, -2)
    queries = ops.reshape(_dense(q_proj_weight)(in_features), split).swapaxes(-3, -2)
    values = ops.reshape(_dense(v_proj_weight)(in_features), split).swapaxes(-3, -2)
    attn_scores = ops.matmul(queries, keys.swapaxes(-2, -1))
    mask = ops.triu(ops.ones((num_tokens, num_tokens), mindspore.float32), diagonal=1).astype(mindspore.bool_)
    attn_scores = ops.masked_fill(attn_scores, mask, float("-inf"))
    attn_weights = nn.Softmax(axis=-1)(attn_scores / head_dim ** 0.5)
    context_vec = ops.matmul(attn_weights, values)
    context_vec = ops.reshape(context_vec, (*batch, num_tokens, d_model))
    return _dense(o_proj_weight, o_proj_bias)(context_vec)
