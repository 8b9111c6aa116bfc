"""Takes the softmax over dim=-2 (copied from a (keys, queries) layout): during decoding, with one query,
every weight becomes 1 and the output is the sum of all values."""

import math

import torch

DIAGNOSIS = None


def run_kv_cache_attention(Q, K, V, k_cache, v_cache):
    t_past, t_new = k_cache.shape[-2], Q.shape[-2]
    k = torch.cat([k_cache, K], dim=-2)
    v = torch.cat([v_cache, V], dim=-2)
    allowed = torch.ones(t_new, t_past + t_new, dtype=torch.bool, device=Q.device).tril(diagonal=t_past)
    scores = (Q @ k.transpose(-2, -1) / math.sqrt(Q.shape[-1])).masked_fill(~allowed, float("-inf"))
    return torch.softmax(scores, dim=-2) @ v, k, v
