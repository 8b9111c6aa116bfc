"""Precomputes one float32 cos/sin table (max_seq_len rows, d_k/2 columns) shared by all heads and loops
over the heads, rotating each head's queries and keys with it; values are left alone."""

import torch
import torch.nn.functional as F

from reference.attention import run_causal_mask, run_scaled_dot_product_attention


def run_multihead_self_attention_with_rope(d_model, num_heads, max_seq_len, theta, q_proj_weight,
                                           k_proj_weight, v_proj_weight, o_proj_weight, in_features,
                                           token_positions=None):
    seq, d_k = in_features.shape[-2], d_model // num_heads
    positions = torch.arange(seq) if token_positions is None else token_positions
    angles = torch.outer(torch.arange(max_seq_len, dtype=torch.float32),
                         theta ** (-torch.arange(0, d_k, 2, dtype=torch.float32) / d_k))  # (max_seq, d_k/2)
    cos, sin = angles.cos()[positions], angles.sin()[positions]  # (..., seq, d_k/2)

    def rotate(x):  # (..., seq, d_k)
        even, odd = x[..., 0::2], x[..., 1::2]
        return torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1).flatten(-2).to(x.dtype)

    mask, heads = run_causal_mask(seq), []
    for h in range(num_heads):
        rows = slice(h * d_k, (h + 1) * d_k)
        q, k, v = (F.linear(in_features, w[rows]) for w in (q_proj_weight, k_proj_weight, v_proj_weight))
        heads.append(run_scaled_dot_product_attention(rotate(q), rotate(k), v, mask=mask))
    return F.linear(torch.cat(heads, dim=-1), o_proj_weight)
