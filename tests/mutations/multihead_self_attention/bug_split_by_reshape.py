"""Splits the heads with reshape(..., heads, seq, d_k) straight from (..., seq, d_model): the numbers are
regrouped in memory order, so each "head" holds slices of several tokens (view, not transpose)."""

import torch.nn.functional as F

from reference.attention import run_causal_mask, run_scaled_dot_product_attention

DIAGNOSIS = "split_by_reshape"


def run_multihead_self_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight,
                                 o_proj_weight, in_features, o_proj_bias=None):
    *batch, seq, _ = in_features.shape
    d_k = d_model // num_heads
    q = F.linear(in_features, q_proj_weight).reshape(*batch, num_heads, seq, d_k)
    k = F.linear(in_features, k_proj_weight).reshape(*batch, num_heads, seq, d_k)
    v = F.linear(in_features, v_proj_weight).reshape(*batch, num_heads, seq, d_k)
    heads = run_scaled_dot_product_attention(q, k, v, mask=run_causal_mask(seq))
    return F.linear(heads.reshape(*batch, seq, d_model), o_proj_weight, o_proj_bias)
