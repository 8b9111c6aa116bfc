"""Computes the frequencies as theta^(-i/d_k) for i = 0 .. d_k/2 - 1, forgetting the 2 in -2i/d_k:
the slowest pair turns far too fast."""

import torch

DIAGNOSIS = "exponent_without_2"


def run_rope(d_k, theta, max_seq_len, in_query_or_key, token_positions):
    x = in_query_or_key.to(torch.promote_types(in_query_or_key.dtype, torch.float32))
    i = torch.arange(d_k // 2, dtype=x.dtype)
    angles = token_positions.to(x.dtype).unsqueeze(-1) * theta ** (-i / d_k)
    cos, sin = angles.cos(), angles.sin()
    even, odd = x[..., 0::2], x[..., 1::2]
    out = torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1).flatten(-2)
    return out.to(in_query_or_key.dtype)
