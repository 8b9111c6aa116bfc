"""Follows seed 003's MultiHeadAttention, which has no mask at all: every token attends to the future."""

import torch.nn.functional as F

from reference.attention import run_scaled_dot_product_attention

DIAGNOSIS = None


def run_multihead_self_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight,
                                 o_proj_weight, in_features, o_proj_bias=None):
    q, k, v = (F.linear(in_features, w).unflatten(-1, (num_heads, -1)).transpose(-3, -2)
               for w in (q_proj_weight, k_proj_weight, v_proj_weight))
    context = run_scaled_dot_product_attention(q, k, v).transpose(-3, -2).flatten(-2)
    return F.linear(context, o_proj_weight, o_proj_bias)
