"""Builds the causal mask of the new tokens and pads it on the left to cover the cache, but pads with False
(F.pad's default 0): the cached keys are masked out and the cache is never attended to."""

import math

import torch
import torch.nn.functional as F

DIAGNOSIS = "only_new_keys"


def run_kv_cache_attention(Q, K, V, k_cache, v_cache):
    t_past, t_new = k_cache.shape[-2], Q.shape[-2]
    k = torch.cat([k_cache, K], dim=-2)
    v = torch.cat([v_cache, V], dim=-2)
    causal = torch.tril(torch.ones(t_new, t_new, device=Q.device))
    mask = F.pad(causal, (t_past, 0))  # (t_new, t_past + t_new)
    scores = Q @ k.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    scores = scores.masked_fill(mask == 0, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v, k, v
