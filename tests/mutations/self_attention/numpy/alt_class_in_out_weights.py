"""Raschka's SelfAttention_v1 written as a small NumPy class: the weights are stored in (d_in, d_out) layout
(the transpose of the nn.Linear weights it is given) so that the forward pass is `x @ W`, with the biases
held beside them. Correct: x @ (Wᵀ) is x Wᵀ, the nn.Linear projection."""

import numpy as np


class SelfAttention:
    def __init__(self, d_in, d_out):
        self.d_in, self.d_out = d_in, d_out
        self.W_query = self.W_key = self.W_value = None
        self.b_query = self.b_key = self.b_value = 0.0

    def load_linear(self, name, weight, bias=None):
        setattr(self, "W_" + name, weight.T)  # (d_in, d_out)
        if bias is not None:
            setattr(self, "b_" + name, bias)

    def forward(self, x):
        queries = x @ self.W_query + self.b_query
        keys = x @ self.W_key + self.b_key
        values = x @ self.W_value + self.b_value
        scores = queries @ np.swapaxes(keys, -2, -1) / self.d_out ** 0.5
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        weights = weights / weights.sum(axis=-1, keepdims=True)
        return weights @ values


def run_self_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features, q_proj_bias=None,
                       k_proj_bias=None, v_proj_bias=None):
    layer = SelfAttention(d_in, d_out)
    layer.load_linear("query", q_proj_weight, q_proj_bias)
    layer.load_linear("key", k_proj_weight, k_proj_bias)
    layer.load_linear("value", v_proj_weight, v_proj_bias)
    return layer.forward(in_features).astype(in_features.dtype)
