"""Applies the output projection as `x @ o_proj_weight.T` and never adds o_proj_bias."""

import torch.nn.functional as F

from reference.attention import run_causal_mask, run_scaled_dot_product_attention

DIAGNOSIS = "output_bias_ignored"


def run_multihead_self_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight,
                                 o_proj_weight, in_features, o_proj_bias=None):
    seq = in_features.shape[-2]
    q, k, v = (F.linear(in_features, w).unflatten(-1, (num_heads, -1)).transpose(-3, -2)
               for w in (q_proj_weight, k_proj_weight, v_proj_weight))
    context = run_scaled_dot_product_attention(q, k, v, mask=run_causal_mask(seq))
    context = context.transpose(-3, -2).flatten(-2)  # (..., seq, d_model)
    return context @ o_proj_weight.T
