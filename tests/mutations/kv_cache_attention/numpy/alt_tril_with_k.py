"""The mask from np.tril with its diagonal offset k=t_past (new token i sits at position t_past + i), and
the scores in float64 before casting back."""

import numpy as np


def run_kv_cache_attention(Q, K, V, k_cache, v_cache):
    t_past, t_new = k_cache.shape[-2], Q.shape[-2]
    keys = np.concatenate([k_cache, K], axis=-2)
    values = np.concatenate([v_cache, V], axis=-2)
    allowed = np.tril(np.ones((t_new, t_past + t_new), dtype=bool), k=t_past)
    q, k, v = (a.astype(np.float64) for a in (Q, keys, values))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(Q.shape[-1])
    scores[..., ~allowed] = -np.inf
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return (weights @ v).astype(Q.dtype), keys, values
