"""Builds the mask with `np.tril(np.ones((t_new, t_total)))` and forgets np.tril's k=t_past: the causal
diagonal starts at key 0, so new token i may see only cached keys 0..i, not the whole cache."""

import math

import numpy as np

DIAGNOSIS = "mask_not_offset"


def run_kv_cache_attention(Q, K, V, k_cache, v_cache):
    keys = np.concatenate([k_cache, K], axis=-2)
    values = np.concatenate([v_cache, V], axis=-2)
    allowed = np.tril(np.ones((Q.shape[-2], keys.shape[-2]), dtype=bool))
    scores = Q @ np.swapaxes(keys, -1, -2) / math.sqrt(Q.shape[-1])
    scores = np.where(allowed, scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return (weights @ values).astype(Q.dtype), keys, values
