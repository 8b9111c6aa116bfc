"""Computes keys @ queriesᵀ instead of queries @ keysᵀ, so row i of the scores belongs to key i and each
query is averaged with weights meant for another token."""

import math

import torch
import torch.nn.functional as F

DIAGNOSIS = "queries_keys_swapped"


def run_self_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                       q_proj_bias=None, k_proj_bias=None, v_proj_bias=None):
    queries = F.linear(in_features, q_proj_weight, q_proj_bias)
    keys = F.linear(in_features, k_proj_weight, k_proj_bias)
    values = F.linear(in_features, v_proj_weight, v_proj_bias)
    attn_scores = keys @ queries.transpose(-2, -1)
    return torch.softmax(attn_scores / math.sqrt(d_out), dim=-1) @ values
