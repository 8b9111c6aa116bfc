"""Wrong grouped-query attention: one function per misconception id of spec/grouped_query_attention.yaml.

Each differs from the right computation in one place: which kv head a query head uses, the scale, or the
mask. `_gqa` does the rest the right way.
"""

import math

import torch
import torch.nn.functional as F

from reference.softmax import run_softmax


def _gqa(num_heads, num_kv_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight, in_features, *,
         kv_head_of, scale_dim=None, causal=True):
    """Query head h uses kv head kv_head_of(h); scores divided by √scale_dim (default d_head)."""
    q, k, v = (F.linear(in_features, w) for w in (q_proj_weight, k_proj_weight, v_proj_weight))
    q = q.unflatten(-1, (num_heads, -1)).transpose(-3, -2)  # (..., heads, seq, d_head)
    k, v = (x.unflatten(-1, (num_kv_heads, -1)).transpose(-3, -2) for x in (k, v))  # (..., kv_heads, seq, d_head)
    index = torch.tensor([kv_head_of(h) for h in range(num_heads)], device=q.device)
    k, v = k.index_select(-3, index), v.index_select(-3, index)  # (..., heads, seq, d_head)
    scores = q @ k.transpose(-2, -1) / math.sqrt(scale_dim or q.shape[-1])
    if causal:
        seq = q.shape[-2]
        scores = scores.masked_fill(torch.ones(seq, seq, dtype=torch.bool, device=q.device).triu(1), float("-inf"))
    y = (run_softmax(scores, dim=-1) @ v).transpose(-3, -2).flatten(-2)  # (..., seq, d_model)
    return F.linear(y, o_proj_weight)


def kv_head_modulo(d_model, num_heads, num_kv_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                   in_features):
    """Query head h uses kv head h % num_kv_heads (the kv heads tiled with .repeat, not repeat_interleave)."""
    return _gqa(num_heads, num_kv_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight, in_features,
                kv_head_of=lambda h: h % num_kv_heads)


def kv_head_divided_by_num_kv_heads(d_model, num_heads, num_kv_heads, q_proj_weight, k_proj_weight, v_proj_weight,
                                    o_proj_weight, in_features):
    """Query head h uses kv head h // num_kv_heads instead of h // (num_heads / num_kv_heads) (crashes where
    that index is out of range)."""
    return _gqa(num_heads, num_kv_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight, in_features,
                kv_head_of=lambda h: h // num_kv_heads)


def scale_by_d_model(d_model, num_heads, num_kv_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                     in_features):
    group = num_heads // num_kv_heads
    return _gqa(num_heads, num_kv_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight, in_features,
                kv_head_of=lambda h: h // group, scale_dim=d_model)


def no_causal_mask(d_model, num_heads, num_kv_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                   in_features):
    group = num_heads // num_kv_heads
    return _gqa(num_heads, num_kv_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight, in_features,
                kv_head_of=lambda h: h // group, causal=False)
