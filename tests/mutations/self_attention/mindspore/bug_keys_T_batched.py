"""Seed 001's SelfAttention_v2 computes `ops.matmul(queries, keys.T)` on a 2-D input. On a batch, Tensor.T
reverses EVERY axis ((b, seq, d) -> (d, seq, b)), not just the last two."""

from mindspore import nn, ops

DIAGNOSIS = None


def _dense(weight, bias):
    d_out, d_in = weight.shape
    return nn.Dense(d_in, d_out, weight_init=weight, bias_init=bias, has_bias=bias is not None, dtype=weight.dtype)


def run_self_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                       q_proj_bias=None, k_proj_bias=None, v_proj_bias=None):
    keys = _dense(k_proj_weight, k_proj_bias)(in_features)
    queries = _dense(q_proj_weight, q_proj_bias)(in_features)
    values = _dense(v_proj_weight, v_proj_bias)(in_features)
    attn_scores = ops.matmul(queries, keys.T)
    attn_weights = nn.Softmax(axis=-1)(attn_scores / keys.shape[-1] ** 0.5)
    return ops.matmul(attn_weights, values)
