"""Projects with `x @ W` as if the weight were (d_in, d_out); nn.Linear weights are (d_out, d_in). It
raises when d_in != d_out and silently uses the transposed matrix when they are equal."""

import math

import torch

DIAGNOSIS = None


def run_self_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                       q_proj_bias=None, k_proj_bias=None, v_proj_bias=None):
    queries = in_features @ q_proj_weight
    keys = in_features @ k_proj_weight
    values = in_features @ v_proj_weight
    if q_proj_bias is not None:
        queries, keys, values = queries + q_proj_bias, keys + k_proj_bias, values + v_proj_bias
    return torch.softmax(queries @ keys.transpose(-2, -1) / math.sqrt(d_out), dim=-1) @ values
