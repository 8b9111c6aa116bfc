"""Seed 001 §3.6.2's MultiHeadAttention cell, dropout left out: nn.Dense layers in the input's dtype loaded
with the given weights (`set_data`; out_proj with a bias only when one is given), written for a 3-D batch as
in the notes (`b, num_tokens, d_in = x.shape`, `ops.reshape` to (b, tokens, heads, head_dim), `ops.transpose`
with (0, 2, 1, 3)); the run function flattens any leading dims into b and restores them. Correct: the
permutations move only the head axis in front of the tokens and back before the heads are merged, the scale
is √head_dim, and flattening the leading dims does not mix batch entries."""

import mindspore
from mindspore import nn, ops


class MultiHeadAttention(nn.Cell):
    def __init__(self, d_in, d_out, num_heads, out_bias=True, dtype=mindspore.float32):
        super().__init__()
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.W_query = nn.Dense(d_in, d_out, has_bias=False, dtype=dtype)
        self.W_key = nn.Dense(d_in, d_out, has_bias=False, dtype=dtype)
        self.W_value = nn.Dense(d_in, d_out, has_bias=False, dtype=dtype)
        self.out_proj = nn.Dense(d_out, d_out, has_bias=out_bias, dtype=dtype)

    def construct(self, x):
        b, num_tokens, d_in = x.shape
        keys = ops.reshape(self.W_key(x), (b, num_tokens, self.num_heads, self.head_dim))
        values = ops.reshape(self.W_value(x), (b, num_tokens, self.num_heads, self.head_dim))
        queries = ops.reshape(self.W_query(x), (b, num_tokens, self.num_heads, self.head_dim))
        keys = ops.transpose(keys, (0, 2, 1, 3))
        queries = ops.transpose(queries, (0, 2, 1, 3))
        values = ops.transpose(values, (0, 2, 1, 3))
        attn_scores = ops.matmul(queries, ops.transpose(keys, (0, 1, 3, 2)))
        mask = ops.triu(ops.ones((num_tokens, num_tokens), mindspore.float32), diagonal=1)
        attn_scores = ops.masked_fill(attn_scores, mask.astype(mindspore.bool_), float("-inf"))
        attn_weights = nn.Softmax(axis=-1)(attn_scores / keys.shape[-1] ** 0.5)
        context_vec = ops.transpose(ops.matmul(attn_weights, values), (0, 2, 1, 3))
        context_vec = ops.reshape(context_vec, (b, num_tokens, self.d_out))
        return self.out_proj(context_vec)


def run_multihead_self_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                                 in_features, o_proj_bias=None):
    *batch, seq, d_in = in_features.shape
    mha = MultiHeadAttention(d_in, d_model, num_heads, out_bias=o_proj_bias is not None, dtype=in_features.dtype)
    mha.W_query.weight.set_data(q_proj_weight)
    mha.W_key.weight.set_data(k_proj_weight)
    mha.W_value.weight.set_data(v_proj_weight)
    mha.out_proj.weight.set_data(o_proj_weight)
    if o_proj_bias is not None:
        mha.out_proj.bias.set_data(o_proj_bias)
    out = mha(in_features.reshape(-1, seq, d_in))  # (b, seq, d_model)
    return out.reshape(*batch, seq, d_model)
