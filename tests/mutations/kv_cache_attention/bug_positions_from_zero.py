"""Compares positions to build the mask, but numbers the new queries 0..t_new-1 instead of
t_past..t_past+t_new-1 (the positions a fresh prompt would have), so the cache shifts nothing."""

import math

import torch

DIAGNOSIS = "mask_not_offset"


def run_kv_cache_attention(Q, K, V, k_cache, v_cache):
    keys = torch.cat((k_cache, K), dim=-2)
    values = torch.cat((v_cache, V), dim=-2)
    q_pos = torch.arange(Q.shape[-2], device=Q.device)
    k_pos = torch.arange(keys.shape[-2], device=Q.device)
    allowed = k_pos[None, :] <= q_pos[:, None]
    att = (Q @ keys.transpose(-2, -1)) * (1.0 / math.sqrt(keys.size(-1)))
    att = att.masked_fill(~allowed, float("-inf"))
    return torch.softmax(att, dim=-1) @ values, keys, values
