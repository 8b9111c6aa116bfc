"""Scales by √n_embd (the full width) instead of √(n_embd / n_head), the size k.size(-1) of one head."""

import math

import torch
import torch.nn.functional as F

DIAGNOSIS = "scale_by_n_embd"


def run_gpt2_causal_self_attention(n_embd, n_head, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias,
                                   in_features):
    *batch, T, C = in_features.shape
    q, k, v = F.linear(in_features, c_attn_weight, c_attn_bias).split(n_embd, dim=-1)
    q, k, v = (x.view(*batch, T, n_head, C // n_head).transpose(-3, -2) for x in (q, k, v))
    att = (q @ k.transpose(-2, -1)) / math.sqrt(n_embd)
    att = att.masked_fill(torch.tril(torch.ones(T, T)) == 0, float("-inf"))
    y = torch.softmax(att, dim=-1) @ v
    return F.linear(y.transpose(-3, -2).contiguous().view(*batch, T, C), c_proj_weight, c_proj_bias)
