"""Hard-codes the base 10000 from the paper instead of using the `theta` argument."""

import torch

DIAGNOSIS = "theta_hardcoded"


def run_rope(d_k, theta, max_seq_len, in_query_or_key, token_positions):
    x = in_query_or_key.to(torch.promote_types(in_query_or_key.dtype, torch.float32))
    freqs = 10000.0 ** (-torch.arange(0, d_k, 2, dtype=x.dtype) / d_k)
    angles = token_positions.to(x.dtype).unsqueeze(-1) * freqs  # (..., seq, d_k/2)
    cos, sin = angles.cos(), angles.sin()
    even, odd = x[..., 0::2], x[..., 1::2]
    out = torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1).flatten(-2)
    return out.to(in_query_or_key.dtype)
