"""Copies the multi-head code and splits keys and values into num_heads heads as well: with fewer kv heads
their projections have only num_kv_heads·d_head features, so the heads come out too narrow and the matmul
fails (it works only when num_kv_heads = num_heads)."""

import math

import torch
import torch.nn.functional as F

DIAGNOSIS = None


def run_grouped_query_attention(d_model, num_heads, num_kv_heads, q_proj_weight, k_proj_weight, v_proj_weight,
                                o_proj_weight, in_features):
    *batch, T, _ = in_features.shape
    q, k, v = (F.linear(in_features, w).view(*batch, T, num_heads, -1).transpose(-3, -2)
               for w in (q_proj_weight, k_proj_weight, v_proj_weight))
    att = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    att = att.masked_fill(torch.ones(T, T, dtype=torch.bool, device=q.device).triu(1), float("-inf"))
    y = (torch.softmax(att, dim=-1) @ v).transpose(-3, -2).reshape(*batch, T, d_model)
    return F.linear(y, o_proj_weight)
