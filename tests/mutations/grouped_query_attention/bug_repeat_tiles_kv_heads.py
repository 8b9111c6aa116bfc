"""Repeats the kv heads with .repeat(...) along the head axis: that tiles them (0, 1, 0, 1), so query head h
uses kv head h % num_kv_heads instead of sharing one with its neighbours (repeat_interleave gives 0, 0, 1, 1)."""

import math

import torch
import torch.nn.functional as F

DIAGNOSIS = "kv_head_modulo"


def run_grouped_query_attention(d_model, num_heads, num_kv_heads, q_proj_weight, k_proj_weight, v_proj_weight,
                                o_proj_weight, in_features):
    *batch, T, _ = in_features.shape
    hd = d_model // num_heads
    q = F.linear(in_features, q_proj_weight).view(*batch, T, num_heads, hd).transpose(-3, -2)
    k = F.linear(in_features, k_proj_weight).view(*batch, T, num_kv_heads, hd).transpose(-3, -2)
    v = F.linear(in_features, v_proj_weight).view(*batch, T, num_kv_heads, hd).transpose(-3, -2)
    n_rep = num_heads // num_kv_heads
    reps = [1] * (k.dim() - 3) + [n_rep, 1, 1]
    k, v = k.repeat(*reps), v.repeat(*reps)
    att = q @ k.transpose(-2, -1) / math.sqrt(hd)
    att = att.masked_fill(torch.ones(T, T, dtype=torch.bool, device=q.device).triu(1), float("-inf"))
    y = (torch.softmax(att, dim=-1) @ v).transpose(-3, -2).reshape(*batch, T, d_model)
    return F.linear(y, o_proj_weight)
