"""Grouped-query attention as a cell, Llama-style: nn.Dense layers (no bias) in the input's dtype loaded with
the given weights, the kv heads given a group axis and widened with `ops.broadcast_to` to
(..., kv_heads, group, seq, d_head) before a reshape to (..., heads, seq, d_head) (Llama's repeat_kv), causal
-inf mask, nn.Softmax, heads merged and projected. Correct: the broadcast axis sits after the kv-head axis, so
query heads g·group .. (g+1)·group − 1 all see kv head g, as consecutive query heads must."""

import mindspore
from mindspore import nn, ops


class GroupedQueryAttention(nn.Cell):
    def __init__(self, d_model, num_heads, num_kv_heads, dtype):
        super().__init__()
        self.num_heads, self.num_kv_heads = num_heads, num_kv_heads
        self.head_dim = d_model // num_heads
        kv_dim = num_kv_heads * self.head_dim
        self.q_proj = nn.Dense(d_model, d_model, has_bias=False, dtype=dtype)
        self.k_proj = nn.Dense(d_model, kv_dim, has_bias=False, dtype=dtype)
        self.v_proj = nn.Dense(d_model, kv_dim, has_bias=False, dtype=dtype)
        self.o_proj = nn.Dense(d_model, d_model, has_bias=False, dtype=dtype)

    def split(self, x, heads):
        *batch, seq, _ = x.shape
        return ops.swapaxes(x.reshape(*batch, seq, heads, self.head_dim), -3, -2)  # (..., heads, seq, hd)

    def repeat_kv(self, x):
        *batch, kv_heads, seq, hd = x.shape
        group = self.num_heads // kv_heads
        x = ops.broadcast_to(x.expand_dims(-3), (*batch, kv_heads, group, seq, hd))
        return x.reshape(*batch, kv_heads * group, seq, hd)

    def construct(self, x):
        seq = x.shape[-2]
        q = self.split(self.q_proj(x), self.num_heads)
        k = self.repeat_kv(self.split(self.k_proj(x), self.num_kv_heads))
        v = self.repeat_kv(self.split(self.v_proj(x), self.num_kv_heads))
        scores = ops.matmul(q, ops.swapaxes(k, -2, -1)) / self.head_dim**0.5
        future = ops.triu(ops.ones((seq, seq), mindspore.float32), diagonal=1).astype(mindspore.bool_)
        weights = nn.Softmax(axis=-1)(ops.masked_fill(scores, future, float("-inf")))
        y = ops.swapaxes(ops.matmul(weights, v), -3, -2)  # (..., seq, heads, hd)
        return self.o_proj(y.reshape(*y.shape[:-2], self.num_heads * self.head_dim))


def run_grouped_query_attention(d_model, num_heads, num_kv_heads, q_proj_weight, k_proj_weight, v_proj_weight,
                                o_proj_weight, in_features):
    gqa = GroupedQueryAttention(d_model, num_heads, num_kv_heads, in_features.dtype)
    gqa.q_proj.weight.set_data(q_proj_weight)
    gqa.k_proj.weight.set_data(k_proj_weight)
    gqa.v_proj.weight.set_data(v_proj_weight)
    gqa.o_proj.weight.set_data(o_proj_weight)
    return gqa(in_features)
