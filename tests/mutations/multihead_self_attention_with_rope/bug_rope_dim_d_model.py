"""Splits the heads first (right) but normalises RoPE's exponent by d_model instead of the head size:
each head's frequencies become theta^(-2i/d_model) instead of theta^(-2i/d_k)."""

import torch
import torch.nn.functional as F

from reference.attention import run_causal_mask, run_scaled_dot_product_attention

DIAGNOSIS = "rope_dim_d_model"


def rope(x, positions, theta, d_model):
    freqs = theta ** (-torch.arange(0, x.shape[-1], 2, dtype=torch.float32) / d_model)
    angles = positions.float().unsqueeze(-1) * freqs  # (..., seq, d_k/2)
    even, odd = x[..., 0::2].float(), x[..., 1::2].float()
    cos, sin = angles.cos(), angles.sin()
    return torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1).flatten(-2).to(x.dtype)


def run_multihead_self_attention_with_rope(d_model, num_heads, max_seq_len, theta, q_proj_weight,
                                           k_proj_weight, v_proj_weight, o_proj_weight, in_features,
                                           token_positions=None):
    seq = in_features.shape[-2]
    positions = (torch.arange(seq) if token_positions is None else token_positions).unsqueeze(-2)
    q, k, v = (F.linear(in_features, w).unflatten(-1, (num_heads, -1)).transpose(-3, -2)
               for w in (q_proj_weight, k_proj_weight, v_proj_weight))
    q, k = rope(q, positions, theta, d_model), rope(k, positions, theta, d_model)
    y = run_scaled_dot_product_attention(q, k, v, mask=run_causal_mask(seq))
    return F.linear(y.transpose(-3, -2).flatten(-2), o_proj_weight)
