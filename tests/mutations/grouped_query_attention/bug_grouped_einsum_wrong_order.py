"""Avoids repeating K and V by viewing the query heads as (group, num_kv_heads) and attending per kv head with
einsum; but the consecutive heads of one group are (num_kv_heads, group), so this pairs query head h with kv
head h % num_kv_heads."""

import math

import torch
import torch.nn.functional as F

DIAGNOSIS = "kv_head_modulo"


def run_grouped_query_attention(d_model, num_heads, num_kv_heads, q_proj_weight, k_proj_weight, v_proj_weight,
                                o_proj_weight, in_features):
    seq = in_features.shape[-2]
    d_head = d_model // num_heads
    group = num_heads // num_kv_heads
    q = F.linear(in_features, q_proj_weight).unflatten(-1, (group, num_kv_heads, d_head))  # (..., t, g, kv, d)
    k = F.linear(in_features, k_proj_weight).unflatten(-1, (num_kv_heads, d_head))  # (..., s, kv, d)
    v = F.linear(in_features, v_proj_weight).unflatten(-1, (num_kv_heads, d_head))
    scores = torch.einsum("...tgnd,...snd->...gnts", q, k) / math.sqrt(d_head)
    future = torch.ones(seq, seq, dtype=torch.bool, device=q.device).triu(1)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    y = torch.einsum("...gnts,...snd->...tgnd", weights, v).flatten(-3)  # (..., t, d_model)
    return F.linear(y, o_proj_weight)
