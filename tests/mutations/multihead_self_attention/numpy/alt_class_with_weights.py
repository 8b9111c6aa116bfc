"""A small NumPy module class in the CS231n style: the weights are loaded into an object once, and its
forward method does the work (split heads, causal attention, merge, project)."""

import math

import numpy as np


class MultiHeadAttention:
    def __init__(self, d_model, num_heads):
        self.d_model, self.num_heads = d_model, num_heads
        self.params = {}

    def load(self, **weights):
        self.params.update({name: w for name, w in weights.items() if w is not None})

    def _heads(self, x):
        *batch, seq, _ = x.shape
        x = x.reshape(*batch, seq, self.num_heads, self.d_model // self.num_heads)
        return np.swapaxes(x, -3, -2)

    def forward(self, x):
        p = self.params
        q, k, v = (self._heads(x @ p[name].T) for name in ("W_q", "W_k", "W_v"))
        seq = x.shape[-2]
        scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])
        scores = np.where(np.tril(np.ones((seq, seq), dtype=bool)), scores, -np.inf)
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        weights /= weights.sum(axis=-1, keepdims=True)
        context = np.swapaxes(weights @ v, -3, -2).reshape(*x.shape[:-1], self.d_model)
        out = context @ p["W_o"].T
        return out + p["b_o"] if "b_o" in p else out


def run_multihead_self_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight,
                                 o_proj_weight, in_features, o_proj_bias=None):
    layer = MultiHeadAttention(d_model, num_heads)
    layer.load(W_q=q_proj_weight, W_k=k_proj_weight, W_v=v_proj_weight, W_o=o_proj_weight, b_o=o_proj_bias)
    return layer.forward(in_features).astype(in_features.dtype)
