"""`Q @ K.T`: in NumPy `.T` reverses every axis, so on a batched (batch, keys, d_k) array it gives
(d_k, keys, batch) instead of (batch, d_k, keys). Right on the 2-D cases; the batched ones fail to
broadcast."""

import math

import numpy as np

DIAGNOSIS = None


def run_scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ K.T / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask.astype(bool), scores, -np.inf)
    exps = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = exps / exps.sum(axis=-1, keepdims=True)
    return (weights @ V).astype(Q.dtype)
