"""Seed 001 §3.6.2's MultiHeadAttention cell with RoPE added, as a course project writes it: nn.Dense layers
in the input's dtype loaded with the given weights (`set_data`), cos/sin tables for positions
0 .. max_seq_len − 1 precomputed in float32 in __init__ (frequencies repeated twice for the interleaved
pairs), looked up by the token positions (`ops.arange(seq)` when none are given) and applied to every head's
queries and keys as x·cos + rotate_every_two(x)·sin. Correct: the lookup gives each token its own angles for
all heads (a head axis is inserted into the looked-up tables), values are not rotated, the mask is causal,
the scale is √head_dim, and the float32 angles are within the spec's tolerance."""

import mindspore
from mindspore import nn, ops


def rotate_every_two(x):
    x1, x2 = x[..., 0::2], x[..., 1::2]
    return ops.stack((-x2, x1), axis=-1).reshape(x.shape)


class RoPEMultiHeadAttention(nn.Cell):
    def __init__(self, d_in, d_out, num_heads, max_seq_len, theta, dtype):
        super().__init__()
        self.num_heads, self.head_dim, self.d_out = num_heads, d_out // num_heads, d_out
        self.W_query = nn.Dense(d_in, d_out, has_bias=False, dtype=dtype)
        self.W_key = nn.Dense(d_in, d_out, has_bias=False, dtype=dtype)
        self.W_value = nn.Dense(d_in, d_out, has_bias=False, dtype=dtype)
        self.out_proj = nn.Dense(d_out, d_out, has_bias=False, dtype=dtype)
        inv_freq = 1.0 / theta ** (ops.arange(0, self.head_dim, 2, dtype=mindspore.float32) / self.head_dim)
        angles = ops.outer(ops.arange(max_seq_len, dtype=mindspore.float32), inv_freq)  # (max_seq_len, hd/2)
        angles = ops.repeat_interleave(angles, 2, axis=-1)  # (max_seq_len, head_dim)
        self.cos_cached, self.sin_cached = ops.cos(angles), ops.sin(angles)

    def split_heads(self, x):
        *batch, seq, _ = x.shape
        return ops.swapaxes(x.reshape(*batch, seq, self.num_heads, self.head_dim), -3, -2)  # (..., h, seq, hd)

    def construct(self, x, token_positions):
        cos = self.cos_cached[token_positions].astype(x.dtype).expand_dims(-3)  # (..., 1, seq, head_dim)
        sin = self.sin_cached[token_positions].astype(x.dtype).expand_dims(-3)
        queries, keys = self.split_heads(self.W_query(x)), self.split_heads(self.W_key(x))
        values = self.split_heads(self.W_value(x))
        queries = queries * cos + rotate_every_two(queries) * sin
        keys = keys * cos + rotate_every_two(keys) * sin
        seq = x.shape[-2]
        future = ops.triu(ops.ones((seq, seq), mindspore.float32), diagonal=1).astype(mindspore.bool_)
        attn_scores = ops.masked_fill(ops.matmul(queries, ops.swapaxes(keys, -2, -1)), future, float("-inf"))
        attn_weights = nn.Softmax(axis=-1)(attn_scores / self.head_dim**0.5)
        context = ops.swapaxes(ops.matmul(attn_weights, values), -3, -2)  # (..., seq, h, head_dim)
        return self.out_proj(context.reshape(*context.shape[:-2], self.d_out))


def run_multihead_self_attention_with_rope(d_model, num_heads, max_seq_len, theta, q_proj_weight, k_proj_weight,
                                           v_proj_weight, o_proj_weight, in_features, token_positions=None):
    if token_positions is None:
        token_positions = ops.arange(in_features.shape[-2])
    mha = RoPEMultiHeadAttention(q_proj_weight.shape[1], d_model, num_heads, max_seq_len, theta, in_features.dtype)
    mha.W_query.weight.set_data(q_proj_weight)
    mha.W_key.weight.set_data(k_proj_weight)
    mha.W_value.weight.set_data(v_proj_weight)
    mha.out_proj.weight.set_data(o_proj_weight)
    return mha(in_features, token_positions)
