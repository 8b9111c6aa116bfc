"""Masks only when the cache is empty (the prefill), as generation loops that switch is_causal off once a
cache exists: decoding one token is right, but a chunk fed after a cache sees its own future."""

import math

import torch

DIAGNOSIS = "no_causal_mask"


def run_kv_cache_attention(Q, K, V, k_cache, v_cache):
    t_past = k_cache.shape[-2]
    k = torch.cat([k_cache, K], dim=-2)
    v = torch.cat([v_cache, V], dim=-2)
    scores = Q @ k.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if t_past == 0:
        causal = torch.ones(Q.shape[-2], Q.shape[-2], dtype=torch.bool, device=Q.device).tril()
        scores = scores.masked_fill(~causal, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v, k, v
