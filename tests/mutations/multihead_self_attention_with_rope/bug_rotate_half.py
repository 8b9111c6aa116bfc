"""Rotates each head's queries and keys with the rotate-half convention (x[i] paired with x[i + d_k/2]),
copied from Hugging Face Llama, instead of the interleaved pairs of this course."""

import torch
import torch.nn.functional as F

from reference.attention import run_causal_mask, run_scaled_dot_product_attention

DIAGNOSIS = "rotate_half"


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def run_multihead_self_attention_with_rope(d_model, num_heads, max_seq_len, theta, q_proj_weight,
                                           k_proj_weight, v_proj_weight, o_proj_weight, in_features,
                                           token_positions=None):
    seq, d_k = in_features.shape[-2], d_model // num_heads
    if token_positions is None:
        token_positions = torch.arange(seq)
    inv_freq = 1.0 / theta ** (torch.arange(0, d_k, 2, dtype=torch.float32) / d_k)
    freqs = token_positions.unsqueeze(-2).float()[..., None] * inv_freq  # (..., 1, seq, d_k/2)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos().to(in_features.dtype), emb.sin().to(in_features.dtype)
    q, k, v = (F.linear(in_features, w).unflatten(-1, (num_heads, d_k)).transpose(-3, -2)
               for w in (q_proj_weight, k_proj_weight, v_proj_weight))
    q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
    y = run_scaled_dot_product_attention(q, k, v, mask=run_causal_mask(seq))
    return F.linear(y.transpose(-3, -2).flatten(-2), o_proj_weight)
