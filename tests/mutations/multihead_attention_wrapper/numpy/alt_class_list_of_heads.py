"""Seed 002's MultiHeadAttentionWrapper as NumPy classes: a list of CausalAttention head objects, each
holding its own weights, called in turn and their outputs concatenated in head order along the last axis."""

import math

import numpy as np


class CausalAttention:
    def __init__(self, W_query, W_key, W_value):
        self.W_query, self.W_key, self.W_value = W_query, W_key, W_value

    def __call__(self, x):
        q, k, v = x @ self.W_query.T, x @ self.W_key.T, x @ self.W_value.T
        seq, d_out = x.shape[-2], q.shape[-1]
        scores = q @ np.swapaxes(k, -2, -1) / math.sqrt(d_out)
        scores = np.where(np.tril(np.ones((seq, seq), dtype=bool)), scores, -np.inf)
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        return (weights / weights.sum(axis=-1, keepdims=True)) @ v


class MultiHeadAttentionWrapper:
    def __init__(self, heads):
        self.heads = heads

    def __call__(self, x):
        return np.concatenate([head(x) for head in self.heads], axis=-1)


def run_multihead_attention_wrapper(d_in, d_out, num_heads, q_proj_weights, k_proj_weights, v_proj_weights,
                                    in_features):
    heads = [CausalAttention(q_proj_weights[h], k_proj_weights[h], v_proj_weights[h]) for h in range(num_heads)]
    return MultiHeadAttentionWrapper(heads)(in_features).astype(in_features.dtype)
