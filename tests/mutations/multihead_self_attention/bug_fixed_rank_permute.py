"""Splits and merges the heads with `B, T, _ = x.shape` and permute(0, 2, 1, 3): right for exactly one batch
dim, but unbatched input and extra leading dims fail."""

import torch.nn.functional as F

from reference.attention import run_causal_mask, run_scaled_dot_product_attention

DIAGNOSIS = None


def run_multihead_self_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight,
                                 o_proj_weight, in_features, o_proj_bias=None):
    B, T, _ = in_features.shape
    q, k, v = (F.linear(in_features, w).view(B, T, num_heads, -1).permute(0, 2, 1, 3)
               for w in (q_proj_weight, k_proj_weight, v_proj_weight))  # (B, heads, T, d_k)
    y = run_scaled_dot_product_attention(q, k, v, mask=run_causal_mask(T))
    return F.linear(y.permute(0, 2, 1, 3).reshape(B, T, d_model), o_proj_weight, o_proj_bias)
