"""Projects with `x @ W.T` only (seed 001's qkv_bias=False habit) and never adds the optional biases."""

import math

import torch

DIAGNOSIS = "biases_ignored"


def run_self_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                       q_proj_bias=None, k_proj_bias=None, v_proj_bias=None):
    queries = in_features @ q_proj_weight.T
    keys = in_features @ k_proj_weight.T
    values = in_features @ v_proj_weight.T
    attn_scores = queries @ keys.transpose(-2, -1)
    return torch.softmax(attn_scores / math.sqrt(d_out), dim=-1) @ values
