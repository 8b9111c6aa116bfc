"""Concatenates the new keys and values in front of the cache (torch.cat([K, k_cache])), keeping the mask
for cached-first order: positions are out of order in the caches, and chunks mask the wrong keys."""

import math

import torch

DIAGNOSIS = "cache_order_reversed"


def run_kv_cache_attention(Q, K, V, k_cache, v_cache):
    t_past, t_new = k_cache.shape[-2], Q.shape[-2]
    k = torch.cat([K, k_cache], dim=-2)
    v = torch.cat([V, v_cache], dim=-2)
    allowed = torch.ones(t_new, t_past + t_new, dtype=torch.bool, device=Q.device).tril(diagonal=t_past)
    scores = (Q @ k.transpose(-2, -1) / math.sqrt(Q.shape[-1])).masked_fill(~allowed, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v, k, v
