"""A KVCache object, as decoding loops keep one: it is created from the cached keys and values, `update` appends
the new ones with np.append along the sequence axis and returns the full cache; the causal mask over the cache
is an additive bias, -inf above the diagonal shifted right by t_past (np.triu with k=t_past + 1)."""

import math

import numpy as np


class KVCache:
    def __init__(self, keys, values):
        self.keys, self.values = keys, values

    def update(self, new_keys, new_values):
        self.keys = np.append(self.keys, new_keys, axis=-2)
        self.values = np.append(self.values, new_values, axis=-2)
        return self.keys, self.values

    def __len__(self):
        return self.keys.shape[-2]


def run_kv_cache_attention(Q, K, V, k_cache, v_cache):
    cache = KVCache(k_cache, v_cache)
    t_past = len(cache)
    keys, values = cache.update(K, V)
    t_new, t_total = Q.shape[-2], len(cache)
    future = np.triu(np.ones((t_new, t_total), dtype=bool), k=t_past + 1)
    bias = np.where(future, -np.inf, 0.0)
    scores = Q @ np.swapaxes(keys, -1, -2) / math.sqrt(Q.shape[-1]) + bias
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    output = weights / weights.sum(axis=-1, keepdims=True) @ values
    return output.astype(Q.dtype), cache.keys, cache.values
