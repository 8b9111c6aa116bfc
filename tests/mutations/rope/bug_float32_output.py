"""Computes in float32 with .float() and returns float32 whatever the input dtype (no cast back)."""

import torch

DIAGNOSIS = None


def run_rope(d_k, theta, max_seq_len, in_query_or_key, token_positions):
    x = in_query_or_key.float()
    freqs = theta ** (-torch.arange(0, d_k, 2).float() / d_k)
    angles = token_positions.float().unsqueeze(-1) * freqs
    cos, sin = angles.cos(), angles.sin()
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1).flatten(-2)
