"""Loops over the query heads and picks kv head h // num_kv_heads, dividing by the number of kv heads rather
than by the group size num_heads // num_kv_heads (the two agree only when num_heads = num_kv_heads²)."""

import math

import torch
import torch.nn.functional as F

DIAGNOSIS = "kv_head_divided_by_num_kv_heads"


def run_grouped_query_attention(d_model, num_heads, num_kv_heads, q_proj_weight, k_proj_weight, v_proj_weight,
                                o_proj_weight, in_features):
    d_head = d_model // num_heads
    seq = in_features.shape[-2]
    causal = torch.tril(torch.ones(seq, seq, dtype=torch.bool, device=in_features.device))
    outs = []
    for h in range(num_heads):
        g = h // num_kv_heads
        q = F.linear(in_features, q_proj_weight[h * d_head:(h + 1) * d_head])
        k = F.linear(in_features, k_proj_weight[g * d_head:(g + 1) * d_head])
        v = F.linear(in_features, v_proj_weight[g * d_head:(g + 1) * d_head])
        scores = (q @ k.transpose(-2, -1) / math.sqrt(d_head)).masked_fill(~causal, float("-inf"))
        outs.append(torch.softmax(scores, dim=-1) @ v)
    return F.linear(torch.cat(outs, dim=-1), o_proj_weight)
