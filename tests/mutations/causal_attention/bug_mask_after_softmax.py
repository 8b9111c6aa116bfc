"""Seed 001 §3.5.1 steps 1-2 only: softmax over all keys, then zero the future weights with the tril
mask, without step 3's renormalisation, so the rows no longer sum to 1."""

import math

import torch
import torch.nn.functional as F

DIAGNOSIS = "mask_after_softmax"


def run_causal_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                         q_proj_bias=None, k_proj_bias=None, v_proj_bias=None):
    queries = F.linear(in_features, q_proj_weight, q_proj_bias)
    keys = F.linear(in_features, k_proj_weight, k_proj_bias)
    values = F.linear(in_features, v_proj_weight, v_proj_bias)
    attn_weights = torch.softmax(queries @ keys.transpose(-2, -1) / math.sqrt(d_out), dim=-1)
    context_length = in_features.shape[-2]
    mask_simple = torch.tril(torch.ones(context_length, context_length))
    masked_simple = attn_weights * mask_simple
    return masked_simple @ values
