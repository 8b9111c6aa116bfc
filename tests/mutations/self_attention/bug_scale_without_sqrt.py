"""Divides the scores by d_out instead of √d_out (the square root forgotten)."""

import torch
import torch.nn.functional as F

DIAGNOSIS = "scale_without_sqrt"


def run_self_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                       q_proj_bias=None, k_proj_bias=None, v_proj_bias=None):
    queries = F.linear(in_features, q_proj_weight, q_proj_bias)
    keys = F.linear(in_features, k_proj_weight, k_proj_bias)
    values = F.linear(in_features, v_proj_weight, v_proj_bias)
    return torch.softmax(queries @ keys.transpose(-2, -1) / d_out, dim=-1) @ values
