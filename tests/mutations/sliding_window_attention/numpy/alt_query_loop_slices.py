"""A loop over query positions: query i attends only to the keys in the slice max(0, i − window + 1) .. i (no
mask needed), in float64; each output row is written into a preallocated array."""

import numpy as np


def run_sliding_window_attention(Q, K, V, window):
    q, k, v = Q.astype(np.float64), K.astype(np.float64), V.astype(np.float64)
    out = np.empty(q.shape[:-1] + v.shape[-1:])
    for i in range(q.shape[-2]):
        start = max(0, i - window + 1)
        scores = np.einsum("...d,...kd->...k", q[..., i, :], k[..., start:i + 1, :]) / np.sqrt(q.shape[-1])
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        weights /= weights.sum(axis=-1, keepdims=True)
        out[..., i, :] = np.einsum("...k,...kd->...d", weights, v[..., start:i + 1, :])
    return out.astype(Q.dtype)
