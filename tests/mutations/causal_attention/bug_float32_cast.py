"""Builds the mask and -inf fill on a float32 copy (`in_features.float()`), returning float32 for float64
and bfloat16 inputs."""

import math

import torch

DIAGNOSIS = None


def run_causal_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                         q_proj_bias=None, k_proj_bias=None, v_proj_bias=None):
    x = in_features.float()
    queries = x @ q_proj_weight.float().T + (0 if q_proj_bias is None else q_proj_bias.float())
    keys = x @ k_proj_weight.float().T + (0 if k_proj_bias is None else k_proj_bias.float())
    values = x @ v_proj_weight.float().T + (0 if v_proj_bias is None else v_proj_bias.float())
    seq = x.shape[-2]
    scores = (queries @ keys.transpose(-2, -1)).masked_fill(torch.ones(seq, seq).triu(1).bool(), -torch.inf)
    return torch.softmax(scores / math.sqrt(d_out), dim=-1) @ values
