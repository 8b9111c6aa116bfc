"""A generation loop: the new tokens one at a time, each attending to everything cached so far and then
appended to the cache (no mask needed: a single query sees the whole cache)."""

import math

import torch


def run_kv_cache_attention(Q, K, V, k_cache, v_cache):
    outputs = []
    for i in range(Q.shape[-2]):
        k_cache = torch.cat([k_cache, K[..., i:i + 1, :]], dim=-2)
        v_cache = torch.cat([v_cache, V[..., i:i + 1, :]], dim=-2)
        scores = Q[..., i:i + 1, :] @ k_cache.transpose(-2, -1) / math.sqrt(Q.shape[-1])
        outputs.append(torch.softmax(scores, dim=-1) @ v_cache)
    return torch.cat(outputs, dim=-2), k_cache, v_cache
