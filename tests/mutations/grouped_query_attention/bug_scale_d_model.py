"""Scales every head's scores by √d_model (single-head habit, `/ math.sqrt(C)`) instead of √d_head."""

import math

import torch
import torch.nn.functional as F

DIAGNOSIS = "scale_by_d_model"


def run_grouped_query_attention(d_model, num_heads, num_kv_heads, q_proj_weight, k_proj_weight, v_proj_weight,
                                o_proj_weight, in_features):
    *batch, T, C = in_features.shape
    hd = d_model // num_heads
    q = F.linear(in_features, q_proj_weight).view(*batch, T, num_heads, hd).transpose(-3, -2)
    k = F.linear(in_features, k_proj_weight).view(*batch, T, num_kv_heads, hd).transpose(-3, -2)
    v = F.linear(in_features, v_proj_weight).view(*batch, T, num_kv_heads, hd).transpose(-3, -2)
    k = k.repeat_interleave(num_heads // num_kv_heads, dim=-3)
    v = v.repeat_interleave(num_heads // num_kv_heads, dim=-3)
    att = q @ k.transpose(-2, -1) / math.sqrt(C)
    att = att.masked_fill(torch.ones(T, T, dtype=torch.bool, device=q.device).triu(1), float("-inf"))
    y = (torch.softmax(att, dim=-1) @ v).transpose(-3, -2).reshape(*batch, T, d_model)
    return F.linear(y, o_proj_weight)
