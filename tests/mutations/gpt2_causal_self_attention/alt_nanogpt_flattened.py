"""Seed 000's forward unchanged on a (B, T, C) view: all leading dims are folded into B first and
unfolded at the end, so nanoGPT's fixed-rank code works for any number of batch dims."""

import math

import torch
import torch.nn.functional as F


def run_gpt2_causal_self_attention(n_embd, n_head, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias,
                                   in_features):
    *lead, T, C = in_features.shape
    x = in_features.reshape(-1, T, C)
    B = x.size(0)
    q, k, v = F.linear(x, c_attn_weight, c_attn_bias).split(n_embd, dim=2)
    q = q.view(B, T, n_head, C // n_head).transpose(1, 2)  # (B, nh, T, hs)
    k = k.view(B, T, n_head, C // n_head).transpose(1, 2)  # (B, nh, T, hs)
    v = v.view(B, T, n_head, C // n_head).transpose(1, 2)  # (B, nh, T, hs)
    att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
    att = att.masked_fill(torch.tril(torch.ones(T, T)).view(1, 1, T, T) == 0, float("-inf"))
    y = torch.softmax(att, dim=-1) @ v  # (B, nh, T, hs)
    y = y.transpose(1, 2).contiguous().view(B, T, C)
    return F.linear(y, c_proj_weight, c_proj_bias).reshape(*lead, T, C)
