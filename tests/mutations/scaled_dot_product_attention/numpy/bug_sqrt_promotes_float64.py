"""Scales by `np.sqrt(d_k)`: d_k is a Python int, so np.sqrt returns a np.float64 scalar, and dividing a
float32 array by it silently makes the scores (and the output) float64. The values are right; the dtype
is not the input's."""

import numpy as np

DIAGNOSIS = None


def run_scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = np.matmul(Q, np.swapaxes(K, -1, -2)) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask == 0, -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores) / np.exp(scores).sum(axis=-1, keepdims=True)
    return weights @ V
