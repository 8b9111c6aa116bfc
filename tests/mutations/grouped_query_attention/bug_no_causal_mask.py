"""Forgets the causal mask (the GQA papers' diagrams show no mask), so every token sees the whole sequence."""

import math

import torch
import torch.nn.functional as F

DIAGNOSIS = "no_causal_mask"


def run_grouped_query_attention(d_model, num_heads, num_kv_heads, q_proj_weight, k_proj_weight, v_proj_weight,
                                o_proj_weight, in_features):
    *batch, T, _ = in_features.shape
    hd = d_model // num_heads
    q = F.linear(in_features, q_proj_weight).view(*batch, T, num_heads, hd).transpose(-3, -2)
    k = F.linear(in_features, k_proj_weight).view(*batch, T, num_kv_heads, hd).transpose(-3, -2)
    v = F.linear(in_features, v_proj_weight).view(*batch, T, num_kv_heads, hd).transpose(-3, -2)
    k = k.repeat_interleave(num_heads // num_kv_heads, dim=-3)
    v = v.repeat_interleave(num_heads // num_kv_heads, dim=-3)
    att = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(hd), dim=-1)
    return F.linear((att @ v).transpose(-3, -2).reshape(*batch, T, d_model), o_proj_weight)
