"""Builds the mask from absolute positions: query i is at t_past + i, and may see key j when j <= t_past + i."""

import math

import torch


def run_kv_cache_attention(Q, K, V, k_cache, v_cache):
    t_past = k_cache.shape[-2]
    keys = torch.cat([k_cache, K], dim=-2)
    values = torch.cat([v_cache, V], dim=-2)
    query_pos = t_past + torch.arange(Q.shape[-2], device=Q.device)
    key_pos = torch.arange(keys.shape[-2], device=Q.device)
    scores = Q @ keys.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    scores = scores.masked_fill(key_pos > query_pos[:, None], float("-inf"))
    return torch.softmax(scores, dim=-1) @ values, keys, values
