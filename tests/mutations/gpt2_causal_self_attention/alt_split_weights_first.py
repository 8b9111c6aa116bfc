"""Splits the fused weight and bias into three (n_embd, n_embd) projections before applying them (rows
0..n_embd-1 are q, then k, then v), which is the same as splitting the fused output."""

import torch.nn.functional as F

from reference.attention import run_causal_mask, run_scaled_dot_product_attention


def run_gpt2_causal_self_attention(n_embd, n_head, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias,
                                   in_features):
    weights, biases = c_attn_weight.chunk(3, dim=0), c_attn_bias.chunk(3, dim=0)
    q, k, v = (F.linear(in_features, w, b).unflatten(-1, (n_head, -1)).transpose(-3, -2)
               for w, b in zip(weights, biases))  # (..., nh, T, hs)
    y = run_scaled_dot_product_attention(q, k, v, mask=run_causal_mask(in_features.shape[-2]))
    return F.linear(y.transpose(-3, -2).flatten(-2), c_proj_weight, c_proj_bias)
