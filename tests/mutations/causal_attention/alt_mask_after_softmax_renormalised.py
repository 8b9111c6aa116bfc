"""Seed 001 §3.5.1 all three steps: softmax, zero the future weights, divide each row by its new sum.
Renormalising makes this equal to masking with -inf before the softmax."""

import math

import torch
import torch.nn.functional as F


def run_causal_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                         q_proj_bias=None, k_proj_bias=None, v_proj_bias=None):
    queries = F.linear(in_features, q_proj_weight, q_proj_bias)
    keys = F.linear(in_features, k_proj_weight, k_proj_bias)
    values = F.linear(in_features, v_proj_weight, v_proj_bias)
    attn_weights = torch.softmax(queries @ keys.transpose(-2, -1) / math.sqrt(d_out), dim=-1)
    context_length = in_features.shape[-2]
    mask_simple = torch.tril(torch.ones(context_length, context_length, dtype=attn_weights.dtype))
    masked_simple = attn_weights * mask_simple
    masked_simple_norm = masked_simple / masked_simple.sum(dim=-1, keepdim=True)
    return masked_simple_norm @ values
