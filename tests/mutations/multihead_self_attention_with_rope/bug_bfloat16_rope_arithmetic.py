"""Rotates each head in the input's dtype: with bfloat16 inputs the positions and angles are rounded to
bfloat16 (a position near 2000 to a multiple of 8), so large positions are rotated wrongly."""

import torch
import torch.nn.functional as F

from reference.attention import run_causal_mask, run_scaled_dot_product_attention

DIAGNOSIS = None


def rope(x, positions, theta):
    d_k = x.shape[-1]
    angles = positions.to(x.dtype).unsqueeze(-1) * theta ** (-torch.arange(0, d_k, 2, dtype=x.dtype) / d_k)
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack((even * angles.cos() - odd * angles.sin(), even * angles.sin() + odd * angles.cos()),
                       dim=-1).flatten(-2)


def run_multihead_self_attention_with_rope(d_model, num_heads, max_seq_len, theta, q_proj_weight,
                                           k_proj_weight, v_proj_weight, o_proj_weight, in_features,
                                           token_positions=None):
    seq = in_features.shape[-2]
    positions = (torch.arange(seq) if token_positions is None else token_positions).unsqueeze(-2)
    q, k, v = (F.linear(in_features, w).unflatten(-1, (num_heads, -1)).transpose(-3, -2)
               for w in (q_proj_weight, k_proj_weight, v_proj_weight))
    q, k = rope(q, positions, theta), rope(k, positions, theta)
    y = run_scaled_dot_product_attention(q, k, v, mask=run_causal_mask(seq))
    return F.linear(y.transpose(-3, -2).flatten(-2), o_proj_weight)
