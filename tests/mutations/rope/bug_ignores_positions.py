"""Rotates by each token's index in the sequence (torch.arange(seq)) and ignores token_positions, which
may start at 100, be shuffled or differ per batch element."""

import torch

DIAGNOSIS = "ignores_positions"


def run_rope(d_k, theta, max_seq_len, in_query_or_key, token_positions):
    x = in_query_or_key.to(torch.promote_types(in_query_or_key.dtype, torch.float32))
    positions = torch.arange(x.shape[-2], dtype=x.dtype)
    angles = positions[:, None] * theta ** (-torch.arange(0, d_k, 2, dtype=x.dtype) / d_k)  # (seq, d_k/2)
    cos, sin = angles.cos(), angles.sin()
    even, odd = x[..., 0::2], x[..., 1::2]
    out = torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1).flatten(-2)
    return out.to(in_query_or_key.dtype)
