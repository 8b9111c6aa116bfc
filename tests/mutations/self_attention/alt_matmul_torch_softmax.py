"""Spells the projections out as x @ Wᵀ (+ b) and uses torch.softmax, which this exercise allows."""

import math

import torch


def run_self_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                       q_proj_bias=None, k_proj_bias=None, v_proj_bias=None):
    def project(weight, bias):
        out = in_features @ weight.transpose(0, 1)  # (..., seq, d_out)
        return out if bias is None else out + bias

    queries, keys = project(q_proj_weight, q_proj_bias), project(k_proj_weight, k_proj_bias)
    values = project(v_proj_weight, v_proj_bias)
    weights = torch.softmax(queries @ keys.transpose(-2, -1) / math.sqrt(keys.shape[-1]), dim=-1)
    return weights @ values
