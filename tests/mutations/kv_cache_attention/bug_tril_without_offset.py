"""Builds the causal mask with torch.tril over the (t_new, t_past + t_new) scores but no diagonal offset, as
for a square mask: new token i is treated as position i, so after a cache it sees only the first i + 1
cached keys (a decoding step sees key 0 alone)."""

import math

import torch

DIAGNOSIS = "mask_not_offset"


def run_kv_cache_attention(Q, K, V, k_cache, v_cache):
    k_all = torch.cat([k_cache, K], dim=-2)
    v_all = torch.cat([v_cache, V], dim=-2)
    scores = Q @ k_all.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    mask = torch.tril(torch.ones(scores.shape[-2], scores.shape[-1], device=Q.device))
    scores = scores.masked_fill(mask == 0, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v_all, k_all, v_all
