"""Seed 001 §3.6.1's MultiHeadAttentionWrapper: an nn.CellList of CausalAttention cells, each loaded with its
head's weights, and ops.cat of their outputs along the last axis."""

import mindspore
from mindspore import nn, ops


class CausalAttention(nn.Cell):
    def __init__(self, d_in, d_out, dtype):
        super().__init__()
        self.W_query = nn.Dense(d_in, d_out, has_bias=False, dtype=dtype)
        self.W_key = nn.Dense(d_in, d_out, has_bias=False, dtype=dtype)
        self.W_value = nn.Dense(d_in, d_out, has_bias=False, dtype=dtype)

    def construct(self, x):
        num_tokens = x.shape[-2]
        keys, queries, values = self.W_key(x), self.W_query(x), self.W_value(x)
        attn_scores = ops.matmul(queries, keys.swapaxes(-2, -1))
        mask = ops.triu(ops.ones((num_tokens, num_tokens), mindspore.float32), diagonal=1).astype(mindspore.bool_)
        attn_scores = ops.masked_fill(attn_scores, mask, float("-inf"))
        attn_weights = nn.Softmax(axis=-1)(attn_scores / keys.shape[-1] ** 0.5)
        return ops.matmul(attn_weights, values)


class MultiHeadAttentionWrapper(nn.Cell):
    def __init__(self, d_in, d_out, num_heads, dtype):
        super().__init__()
        self.heads = nn.CellList([CausalAttention(d_in, d_out, dtype) for _ in range(num_heads)])

    def construct(self, x):
        return ops.cat([head(x) for head in self.heads], axis=-1)


def run_multihead_attention_wrapper(d_in, d_out, num_heads, q_proj_weights, k_proj_weights, v_proj_weights,
                                    in_features):
    mha = MultiHeadAttentionWrapper(d_in, d_out, num_heads, in_features.dtype)
    for h, head in enumerate(mha.heads):
        head.W_query.weight.set_data(q_proj_weights[h])
        head.W_key.weight.set_data(k_proj_weights[h])
        head.W_value.weight.set_data(v_proj_weights[h])
    return mha(in_features)
