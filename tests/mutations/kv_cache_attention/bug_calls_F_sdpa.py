"""Hands the attention to PyTorch's kernel with the shifted mask: the values are right, but the exercise
forbids the library call that does it (with is_causal=True instead of the mask it would even be wrong,
as its diagonal starts at key 0)."""

import torch
import torch.nn.functional as F

DIAGNOSIS = None


def run_kv_cache_attention(Q, K, V, k_cache, v_cache):
    t_past, t_new = k_cache.shape[-2], Q.shape[-2]
    k = torch.cat([k_cache, K], dim=-2)
    v = torch.cat([v_cache, V], dim=-2)
    allowed = torch.ones(t_new, t_past + t_new, dtype=torch.bool, device=Q.device).tril(diagonal=t_past)
    return F.scaled_dot_product_attention(Q, k, v, attn_mask=allowed), k, v
