"""einops without repeating K and V: the query heads viewed as (kv head, position in group), one einsum per
kv head's group, and the heads merged back in order."""

import math

import torch
from einops import rearrange


def run_grouped_query_attention(d_model, num_heads, num_kv_heads, q_proj_weight, k_proj_weight, v_proj_weight,
                                o_proj_weight, in_features):
    d_head = d_model // num_heads
    q = rearrange(in_features @ q_proj_weight.T, "... t (n g d) -> ... n g t d", n=num_kv_heads, d=d_head)
    k = rearrange(in_features @ k_proj_weight.T, "... s (n d) -> ... n s d", n=num_kv_heads)
    v = rearrange(in_features @ v_proj_weight.T, "... s (n d) -> ... n s d", n=num_kv_heads)
    scores = torch.einsum("...ngtd,...nsd->...ngts", q, k) / math.sqrt(d_head)
    t = in_features.shape[-2]
    scores = scores.masked_fill(torch.ones(t, t, dtype=torch.bool, device=q.device).triu(1), float("-inf"))
    y = torch.einsum("...ngts,...nsd->...ngtd", scores.softmax(dim=-1), v)
    return rearrange(y, "... n g t d -> ... t (n g d)") @ o_proj_weight.T
