"""Scales the scores by √d_in (the input width) instead of √d_out, the size of the keys."""

import math

import torch

DIAGNOSIS = "scale_by_d_in"


def run_self_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                       q_proj_bias=None, k_proj_bias=None, v_proj_bias=None):
    queries = torch.nn.functional.linear(in_features, q_proj_weight, q_proj_bias)
    keys = torch.nn.functional.linear(in_features, k_proj_weight, k_proj_bias)
    values = torch.nn.functional.linear(in_features, v_proj_weight, v_proj_bias)
    weights = torch.softmax(queries @ keys.transpose(-2, -1) / math.sqrt(d_in), dim=-1)
    return weights @ values
