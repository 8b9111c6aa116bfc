"""Raschka's CausalAttention as a NumPy class holding its weights and a mask buffer np.triu(ones, k=1) (the
future); the scores of the future are set to -inf by boolean indexing on the (new) scores array, the NumPy
spelling of masked_fill_. The inputs are never written to."""

import math

import numpy as np


class CausalAttention:
    def __init__(self, d_in, d_out, W_query, W_key, W_value, b_query=None, b_key=None, b_value=None):
        self.d_out = d_out
        self.linears = [(W_query, b_query), (W_key, b_key), (W_value, b_value)]

    def forward(self, x):
        q, k, v = (x @ w.T if b is None else x @ w.T + b for w, b in self.linears)
        seq = x.shape[-2]
        future = np.triu(np.ones((seq, seq)), k=1).astype(bool)
        scores = q @ np.swapaxes(k, -1, -2)  # a new array: filling it in place is safe
        scores[..., future] = -np.inf
        scores = scores / math.sqrt(self.d_out)
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        weights = weights / weights.sum(axis=-1, keepdims=True)
        return weights @ v


def run_causal_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features, q_proj_bias=None,
                         k_proj_bias=None, v_proj_bias=None):
    layer = CausalAttention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight,
                            q_proj_bias, k_proj_bias, v_proj_bias)
    return layer.forward(in_features).astype(in_features.dtype)
