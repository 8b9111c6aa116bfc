"""Llama's repeat_kv with the new axis on the wrong side: x[:, None] instead of x[:, :, None], so after the
expand and reshape the kv heads come out tiled and query head h meets kv head h % num_kv_heads. Written
for (batch, seq, d_model) inputs, as most course code is."""

import math

import torch
import torch.nn.functional as F

DIAGNOSIS = "kv_head_modulo"


def repeat_kv(x, n_rep):
    b, n_kv, t, hd = x.shape
    if n_rep == 1:
        return x
    return x[:, None, :, :, :].expand(b, n_rep, n_kv, t, hd).reshape(b, n_kv * n_rep, t, hd)


def run_grouped_query_attention(d_model, num_heads, num_kv_heads, q_proj_weight, k_proj_weight, v_proj_weight,
                                o_proj_weight, in_features):
    B, T, C = in_features.shape
    hd = d_model // num_heads
    q = F.linear(in_features, q_proj_weight).view(B, T, num_heads, hd).transpose(1, 2)
    k = F.linear(in_features, k_proj_weight).view(B, T, num_kv_heads, hd).transpose(1, 2)
    v = F.linear(in_features, v_proj_weight).view(B, T, num_kv_heads, hd).transpose(1, 2)
    k, v = repeat_kv(k, num_heads // num_kv_heads), repeat_kv(v, num_heads // num_kv_heads)
    att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
    att = att.masked_fill(torch.tril(torch.ones(T, T, device=q.device)) == 0, float("-inf"))
    y = (torch.softmax(att, dim=-1) @ v).transpose(1, 2).contiguous().view(B, T, C)
    return F.linear(y, o_proj_weight)
