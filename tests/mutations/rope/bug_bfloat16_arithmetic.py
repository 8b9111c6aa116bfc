"""Computes the angles and the rotation in the input's dtype: for bfloat16 a position like 1539 is
rounded to a multiple of 8 and its angles are off by radians. Compute in float32 and cast back."""

import torch

DIAGNOSIS = None


def run_rope(d_k, theta, max_seq_len, in_query_or_key, token_positions):
    x = in_query_or_key
    freqs = theta ** (-torch.arange(0, d_k, 2, dtype=x.dtype) / d_k)
    angles = token_positions.to(x.dtype).unsqueeze(-1) * freqs  # (..., seq, d_k/2) in x's dtype
    cos, sin = angles.cos(), angles.sin()
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1).flatten(-2)
