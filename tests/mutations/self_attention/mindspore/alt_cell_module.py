"""Seed 001 §3.4.2's SelfAttention_v2 as written there: an nn.Cell with three nn.Dense layers, here created in
the input's dtype and loaded with the given weights, and a construct method."""

import mindspore
from mindspore import nn, ops


class SelfAttention_v2(nn.Cell):
    def __init__(self, d_in, d_out, qkv_bias=False, dtype=mindspore.float32):
        super().__init__()
        self.W_query = nn.Dense(d_in, d_out, has_bias=qkv_bias, dtype=dtype)
        self.W_key = nn.Dense(d_in, d_out, has_bias=qkv_bias, dtype=dtype)
        self.W_value = nn.Dense(d_in, d_out, has_bias=qkv_bias, dtype=dtype)
        self.softmax = nn.Softmax(axis=-1)

    def construct(self, x):
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        attn_scores = ops.matmul(queries, keys.swapaxes(-2, -1))
        scale_factor = keys.shape[-1] ** 0.5
        attn_weights = self.softmax(attn_scores / scale_factor)
        return ops.matmul(attn_weights, values)


def run_self_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                       q_proj_bias=None, k_proj_bias=None, v_proj_bias=None):
    sa = SelfAttention_v2(d_in, d_out, qkv_bias=q_proj_bias is not None, dtype=in_features.dtype)
    for layer, weight, bias in ((sa.W_query, q_proj_weight, q_proj_bias), (sa.W_key, k_proj_weight, k_proj_bias),
                                (sa.W_value, v_proj_weight, v_proj_bias)):
        layer.weight.set_data(weight)
        if bias is not None:
            layer.bias.set_data(bias)
    return sa(in_features)
