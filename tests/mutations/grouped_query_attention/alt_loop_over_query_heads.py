"""One query head at a time: head h takes rows h·d_head .. of q_proj_weight and its kv head
g = h // (num_heads // num_kv_heads) takes rows g·d_head .. of the key and value weights."""

import math

import torch
import torch.nn.functional as F


def run_grouped_query_attention(d_model, num_heads, num_kv_heads, q_proj_weight, k_proj_weight, v_proj_weight,
                                o_proj_weight, in_features):
    d_head = d_model // num_heads
    group = num_heads // num_kv_heads
    seq = in_features.shape[-2]
    future = torch.ones(seq, seq, dtype=torch.bool, device=in_features.device).triu(1)
    heads = []
    for h in range(num_heads):
        g = h // group
        q = F.linear(in_features, q_proj_weight[h * d_head:(h + 1) * d_head])
        k = F.linear(in_features, k_proj_weight[g * d_head:(g + 1) * d_head])
        v = F.linear(in_features, v_proj_weight[g * d_head:(g + 1) * d_head])
        scores = (q @ k.mT / math.sqrt(d_head)).masked_fill(future, float("-inf"))
        heads.append(torch.softmax(scores, dim=-1) @ v)
    return torch.cat(heads, dim=-1) @ o_proj_weight.T
