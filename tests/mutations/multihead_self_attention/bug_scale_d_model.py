"""Scales every head's scores by √d_model (seed 003's SelfAttention habit, `/ math.sqrt(hidden_size)`)
instead of √d_k, the size of one head."""

import math

import torch
import torch.nn.functional as F

DIAGNOSIS = "scale_by_d_model"


def run_multihead_self_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight,
                                 o_proj_weight, in_features, o_proj_bias=None):
    *batch, seq, _ = in_features.shape
    q, k, v = (F.linear(in_features, w).view(*batch, seq, num_heads, -1).transpose(-3, -2)
               for w in (q_proj_weight, k_proj_weight, v_proj_weight))
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_model)
    scores = scores.masked_fill(torch.ones(seq, seq, dtype=torch.bool).triu(1), float("-inf"))
    context = (torch.softmax(scores, dim=-1) @ v).transpose(-3, -2).reshape(*batch, seq, d_model)
    return F.linear(context, o_proj_weight, o_proj_bias)
