"""Skips the concatenation when the cache is empty and returns K and V themselves as the new caches: the
caller's tensors become the cache, so whoever writes into the cache later (a preallocated buffer, an
in-place update) changes them. The contract asks for new tensors."""

import math

import torch

DIAGNOSIS = None


def run_kv_cache_attention(Q, K, V, k_cache, v_cache):
    t_past, t_new = k_cache.shape[-2], Q.shape[-2]
    if t_past == 0:
        k, v = K, V
    else:
        k, v = torch.cat([k_cache, K], dim=-2), torch.cat([v_cache, V], dim=-2)
    allowed = torch.ones(t_new, t_past + t_new, dtype=torch.bool, device=Q.device).tril(diagonal=t_past)
    scores = (Q @ k.transpose(-2, -1) / math.sqrt(Q.shape[-1])).masked_fill(~allowed, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v, k, v
