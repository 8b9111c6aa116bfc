"""Seed 001 §3.5.3's CausalAttention cell, dropout left out: three nn.Dense layers created in the input's
dtype and loaded with the given weights and biases (`set_data`), the mask of the future
`ops.triu(ones, diagonal=1)` kept as a non-trainable Parameter of context_length, cut to `[:num_tokens,
:num_tokens]`, `ops.masked_fill` with -inf, and nn.Softmax(axis=-1) of the scores / √d_out. Correct: the same
causal attention for any number of leading dims, since only the last two axes of the keys are swapped."""

import mindspore
from mindspore import nn, ops


class CausalAttention(nn.Cell):
    def __init__(self, d_in, d_out, context_length, qkv_bias=False, dtype=mindspore.float32):
        super().__init__()
        self.d_out = d_out
        self.W_query = nn.Dense(d_in, d_out, has_bias=qkv_bias, dtype=dtype)
        self.W_key = nn.Dense(d_in, d_out, has_bias=qkv_bias, dtype=dtype)
        self.W_value = nn.Dense(d_in, d_out, has_bias=qkv_bias, dtype=dtype)
        ones_matrix = ops.ones((context_length, context_length), mindspore.float32)
        self.mask = mindspore.Parameter(ops.triu(ones_matrix, diagonal=1), requires_grad=False)

    def construct(self, x):
        num_tokens = x.shape[-2]
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        attn_scores = queries @ ops.swapaxes(keys, -2, -1)
        mask_bool = self.mask[:num_tokens, :num_tokens].astype(mindspore.bool_)
        attn_scores = ops.masked_fill(attn_scores, mask_bool, float("-inf"))
        attn_weights = nn.Softmax(axis=-1)(attn_scores / keys.shape[-1] ** 0.5)
        return attn_weights @ values


def run_causal_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                         q_proj_bias=None, k_proj_bias=None, v_proj_bias=None):
    ca = CausalAttention(d_in, d_out, in_features.shape[-2], qkv_bias=q_proj_bias is not None,
                         dtype=in_features.dtype)
    for layer, weight, bias in ((ca.W_query, q_proj_weight, q_proj_bias), (ca.W_key, k_proj_weight, k_proj_bias),
                                (ca.W_value, v_proj_weight, v_proj_bias)):
        layer.weight.set_data(weight)
        if bias is not None:
            layer.bias.set_data(bias)
    return ca(in_features)
