"""Adds a causal bias matrix (0 on and below the diagonal, -inf above) to the scores before the softmax,
the additive form of the mask."""

import math

import torch
import torch.nn.functional as F


def run_causal_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                         q_proj_bias=None, k_proj_bias=None, v_proj_bias=None):
    queries = F.linear(in_features, q_proj_weight, q_proj_bias)
    keys = F.linear(in_features, k_proj_weight, k_proj_bias)
    values = F.linear(in_features, v_proj_weight, v_proj_bias)
    seq = in_features.shape[-2]
    bias = torch.full((seq, seq), float("-inf"), dtype=queries.dtype).triu(diagonal=1)  # 0 where allowed
    scores = queries @ keys.transpose(-2, -1) / math.sqrt(d_out) + bias
    return torch.softmax(scores, dim=-1) @ values
