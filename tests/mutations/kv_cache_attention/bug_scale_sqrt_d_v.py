"""Scales the scores by 1/√d with d read from the values (`d = v_cache.shape[-1]`, "the head size"): right
while d_v = d_k, as in nanoGPT, but the scale is 1/√d_k, the size of the vectors in each dot product."""

import math

import torch

DIAGNOSIS = None


def run_kv_cache_attention(Q, K, V, k_cache, v_cache):
    k_cache = torch.cat([k_cache, K], dim=-2)  # (..., t_past + t_new, d_k)
    v_cache = torch.cat([v_cache, V], dim=-2)  # (..., t_past + t_new, d_v)
    t_new, t_total = Q.shape[-2], k_cache.shape[-2]
    head_size = v_cache.shape[-1]
    att = (Q @ k_cache.transpose(-2, -1)) * (1.0 / math.sqrt(head_size))
    mask = torch.ones(t_new, t_total, dtype=torch.bool, device=Q.device).tril(diagonal=t_total - t_new)
    att = att.masked_fill(~mask, float("-inf"))
    return torch.softmax(att, dim=-1) @ v_cache, k_cache, v_cache
