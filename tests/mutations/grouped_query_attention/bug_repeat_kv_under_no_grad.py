"""Wraps the kv-head repetition in torch.no_grad() ("it only copies memory"): the forward values are right,
but the repeated keys and values are cut from the graph, so no gradient reaches the key and value
projections or flows through them to the input."""

import math

import torch
import torch.nn.functional as F

DIAGNOSIS = None


def run_grouped_query_attention(d_model, num_heads, num_kv_heads, q_proj_weight, k_proj_weight, v_proj_weight,
                                o_proj_weight, in_features):
    *batch, T, _ = in_features.shape
    hd = d_model // num_heads
    q = F.linear(in_features, q_proj_weight).view(*batch, T, num_heads, hd).transpose(-3, -2)
    k = F.linear(in_features, k_proj_weight).view(*batch, T, num_kv_heads, hd).transpose(-3, -2)
    v = F.linear(in_features, v_proj_weight).view(*batch, T, num_kv_heads, hd).transpose(-3, -2)
    with torch.no_grad():
        k = k.repeat_interleave(num_heads // num_kv_heads, dim=-3)
        v = v.repeat_interleave(num_heads // num_kv_heads, dim=-3)
    att = q @ k.transpose(-2, -1) / math.sqrt(hd)
    att = att.masked_fill(torch.ones(T, T, dtype=torch.bool, device=q.device).triu(1), float("-inf"))
    y = (torch.softmax(att, dim=-1) @ v).transpose(-3, -2).reshape(*batch, T, d_model)
    return F.linear(y, o_proj_weight)
