"""Seed 001 §3.5.3's CausalAttention, copied as it is: `b, num_tokens, d_in = x.shape` and
`ops.transpose(keys, (0, 2, 1))` assume exactly one batch dimension, so an input without a batch
dimension, or with two, fails."""

import mindspore
from mindspore import nn, ops

DIAGNOSIS = None


def run_causal_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                         q_proj_bias=None, k_proj_bias=None, v_proj_bias=None):
    dtype = in_features.dtype
    W_query = nn.Dense(d_in, d_out, weight_init=q_proj_weight, bias_init=q_proj_bias,
                       has_bias=q_proj_bias is not None, dtype=dtype)
    W_key = nn.Dense(d_in, d_out, weight_init=k_proj_weight, bias_init=k_proj_bias,
                     has_bias=k_proj_bias is not None, dtype=dtype)
    W_value = nn.Dense(d_in, d_out, weight_init=v_proj_weight, bias_init=v_proj_bias,
                       has_bias=v_proj_bias is not None, dtype=dtype)
    b, num_tokens, d_in = in_features.shape
    keys = W_key(in_features)
    queries = W_query(in_features)
    values = W_value(in_features)
    keys_transposed = ops.transpose(keys, (0, 2, 1))
    attn_scores = queries @ keys_transposed
    mask = ops.triu(ops.ones((num_tokens, num_tokens), mindspore.float32), diagonal=1)
    attn_scores = ops.masked_fill(attn_scores, mask.astype(mindspore.bool_), float("-inf"))
    attn_weights = nn.Softmax(axis=-1)(attn_scores / keys.shape[-1] ** 0.5)
    return attn_weights @ values
