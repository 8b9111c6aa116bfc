"""Reads seed 001's "zero out the weights above the diagonal" as zeroing the SCORES before the softmax:
exp(0) = 1, so the future tokens still get weight."""

import math

import torch
import torch.nn.functional as F

DIAGNOSIS = "masked_with_zero"


def run_causal_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                         q_proj_bias=None, k_proj_bias=None, v_proj_bias=None):
    queries = F.linear(in_features, q_proj_weight, q_proj_bias)
    keys = F.linear(in_features, k_proj_weight, k_proj_bias)
    values = F.linear(in_features, v_proj_weight, v_proj_bias)
    scores = queries @ keys.transpose(-2, -1) / math.sqrt(d_out)
    seq = in_features.shape[-2]
    future = torch.triu(torch.ones(seq, seq, dtype=torch.bool), diagonal=1)
    scores = scores.masked_fill(future, 0.0)
    return torch.softmax(scores, dim=-1) @ values
