"""NumPy's own masked arrays: the scores (np.matmul, float64) become a numpy.ma array masked where the query may
not attend, the softmax runs with np.ma.exp and masked sums (masked entries are left out), and .filled(0.0)
turns the masked weights into exact zeros before the weighted sum. A plain ndarray is returned."""

import numpy as np


def run_scaled_dot_product_attention(Q, K, V, mask=None):
    q, k, v = Q.astype(np.float64), K.astype(np.float64), V.astype(np.float64)
    scores = np.matmul(q, np.swapaxes(k, -1, -2)) / np.sqrt(q.shape[-1])
    hidden = np.zeros(scores.shape, dtype=bool) if mask is None else np.broadcast_to(mask == 0, scores.shape)
    masked = np.ma.masked_array(scores, mask=hidden)
    exps = np.ma.exp(masked - masked.max(axis=-1, keepdims=True))
    weights = (exps / exps.sum(axis=-1, keepdims=True)).filled(0.0)
    return np.matmul(weights, v).astype(Q.dtype)
