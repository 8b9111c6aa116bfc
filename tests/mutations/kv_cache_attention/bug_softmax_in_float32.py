"""The Llama/Mistral idiom `F.softmax(scores.float(), dim=-1).type_as(Q)`: the softmax is always taken in
float32, which is right for bfloat16 inputs (it upcasts) but rounds float64 scores down to float32, so a
float64 call returns float64 values with float32 precision (off by ~1e-7 relative)."""

import math

import torch
import torch.nn.functional as F

DIAGNOSIS = "float32_precision"


def run_kv_cache_attention(Q, K, V, k_cache, v_cache):
    keys = torch.cat([k_cache, K], dim=-2)  # (..., t_past + t_new, d)
    values = torch.cat([v_cache, V], dim=-2)
    t_new, t_total = Q.shape[-2], keys.shape[-2]
    scores = Q @ keys.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    future = torch.ones(t_new, t_total, dtype=torch.bool, device=Q.device).triu(t_total - t_new + 1)
    scores = scores.masked_fill(future, float("-inf"))
    weights = F.softmax(scores.float(), dim=-1).type_as(Q)
    return weights @ values, keys, values
