"""The band as the intersection of two triangles: np.tril(ones) (causal) and np.triu(ones, k=−(window − 1)) (at
most window − 1 back), turned into an additive bias of 0 and -inf; np.matmul for the products, float32 inside
for bfloat16."""

import numpy as np


def run_sliding_window_attention(Q, K, V, window):
    work = np.promote_types(Q.dtype, np.float32)
    seq = Q.shape[-2]
    ones = np.ones((seq, seq), dtype=bool)
    band = np.tril(ones) & np.triu(ones, k=-(window - 1))
    bias = np.where(band, 0.0, -np.inf).astype(work)
    scores = np.matmul(Q.astype(work), np.swapaxes(K.astype(work), -1, -2)) / np.sqrt(Q.shape[-1]).astype(work)
    scores = scores + bias
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return np.matmul(weights, V.astype(work)).astype(Q.dtype)
