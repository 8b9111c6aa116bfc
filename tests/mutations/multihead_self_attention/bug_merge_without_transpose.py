"""Splits the heads correctly but merges them with reshape(..., seq, d_model) straight from
(..., heads, seq, d_k), without transposing back: rows of different tokens get mixed."""

import torch.nn.functional as F

from reference.attention import run_causal_mask, run_scaled_dot_product_attention

DIAGNOSIS = "merge_without_transpose"


def run_multihead_self_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight,
                                 o_proj_weight, in_features, o_proj_bias=None):
    *batch, seq, _ = in_features.shape
    d_k = d_model // num_heads
    q = F.linear(in_features, q_proj_weight).view(*batch, seq, num_heads, d_k).transpose(-3, -2)
    k = F.linear(in_features, k_proj_weight).view(*batch, seq, num_heads, d_k).transpose(-3, -2)
    v = F.linear(in_features, v_proj_weight).view(*batch, seq, num_heads, d_k).transpose(-3, -2)
    context = run_scaled_dot_product_attention(q, k, v, mask=run_causal_mask(seq))  # (..., heads, seq, d_k)
    context = context.contiguous().view(*batch, seq, d_model)
    return F.linear(context, o_proj_weight, o_proj_bias)
