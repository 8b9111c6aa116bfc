"""Seed 003's slip in nanoGPT's block: q, k, v viewed as (..., T, n_head, hs) without .transpose(1, 2),
so attention (and the causal mask) runs across the heads of one token, not across tokens."""

import math

import torch
import torch.nn.functional as F

DIAGNOSIS = "heads_not_transposed"


def run_gpt2_causal_self_attention(n_embd, n_head, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias,
                                   in_features):
    *batch, T, C = in_features.shape
    q, k, v = F.linear(in_features, c_attn_weight, c_attn_bias).split(n_embd, dim=-1)
    q, k, v = (x.view(*batch, T, n_head, C // n_head) for x in (q, k, v))  # (..., T, nh, hs)
    att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
    n = att.size(-1)
    att = att.masked_fill(torch.tril(torch.ones(n, n)) == 0, float("-inf"))
    y = torch.softmax(att, dim=-1) @ v
    return F.linear(y.reshape(*batch, T, C), c_proj_weight, c_proj_bias)
