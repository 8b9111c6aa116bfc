"""Detaches the caches "because a cache is inference-only": the values are right, but no gradient flows
through the returned caches to K, V or the old caches, so the same code cannot train with a cache (or
backpropagate through a prefix, as in prompt tuning)."""

import math

import torch

DIAGNOSIS = None


def run_kv_cache_attention(Q, K, V, k_cache, v_cache):
    t_past, t_new = k_cache.shape[-2], Q.shape[-2]
    k = torch.cat([k_cache, K], dim=-2)
    v = torch.cat([v_cache, V], dim=-2)
    allowed = torch.ones(t_new, t_past + t_new, dtype=torch.bool, device=Q.device).tril(diagonal=t_past)
    scores = (Q @ k.transpose(-2, -1) / math.sqrt(Q.shape[-1])).masked_fill(~allowed, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v, k.detach(), v.detach()
