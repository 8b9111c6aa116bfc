"""Seed 001 §3.4.1's SelfAttention_v1: the weights held as `Parameter`s of shape (d_in, d_out) (the given
nn.Dense-layout weights transposed), `x @ self.W_query`, and the scores against the keys with their last two
axes swapped. Correct: x @ Wᵀ (+ b) is what nn.Dense computes, the scale is √d_out (the keys' last axis), and
swapping only the last two axes keeps any leading batch dimensions in place (seed 001's `keys.T` would not)."""

from mindspore import Parameter, nn, ops


class SelfAttention_v1(nn.Cell):
    def __init__(self, q_weight, k_weight, v_weight, q_bias=None, k_bias=None, v_bias=None):
        super().__init__()
        self.W_query = Parameter(q_weight.T, name="W_query", requires_grad=False)  # (d_in, d_out)
        self.W_key = Parameter(k_weight.T, name="W_key", requires_grad=False)
        self.W_value = Parameter(v_weight.T, name="W_value", requires_grad=False)
        self.biases = (q_bias, k_bias, v_bias)
        self.softmax = nn.Softmax(axis=-1)

    def construct(self, x):
        queries = x @ self.W_query
        keys = x @ self.W_key
        values = x @ self.W_value
        q_bias, k_bias, v_bias = self.biases
        if q_bias is not None:
            queries, keys, values = queries + q_bias, keys + k_bias, values + v_bias
        attn_scores = queries @ ops.swapaxes(keys, -2, -1)  # omega
        attn_weights = self.softmax(attn_scores / keys.shape[-1] ** 0.5)
        return attn_weights @ values


def run_self_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                       q_proj_bias=None, k_proj_bias=None, v_proj_bias=None):
    sa_v1 = SelfAttention_v1(q_proj_weight, k_proj_weight, v_proj_weight, q_proj_bias, k_proj_bias, v_proj_bias)
    return sa_v1(in_features)
