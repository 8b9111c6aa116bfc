"""Scores against the cache (never masked) and against the new keys (causal) computed apart, joined along
the key axis for one softmax; the caches extended afterwards."""

import math

import torch


def run_kv_cache_attention(Q, K, V, k_cache, v_cache):
    scale = 1 / math.sqrt(Q.shape[-1])
    past = Q @ k_cache.mT * scale  # (..., t_new, t_past)
    new = Q @ K.mT * scale  # (..., t_new, t_new)
    future = torch.ones(new.shape[-2:], dtype=torch.bool, device=Q.device).triu(1)
    new = new.masked_fill(future, float("-inf"))
    weights = torch.softmax(torch.cat([past, new], dim=-1), dim=-1)
    t_past = k_cache.shape[-2]
    out = weights[..., :t_past] @ v_cache + weights[..., t_past:] @ V
    return out, torch.cat([k_cache, K], dim=-2), torch.cat([v_cache, V], dim=-2)
