"""The GPT-J formulation: x·cos + rotate_every_two(x)·sin, with cos/sin repeated per pair
(repeat_interleave) and rotate_every_two(x) = (-x1, x0, -x3, x2, ...)."""

import torch


def run_rope(d_k, theta, max_seq_len, in_query_or_key, token_positions):
    x = in_query_or_key.to(torch.promote_types(in_query_or_key.dtype, torch.float32))
    inv_freq = theta ** (-torch.arange(0, d_k, 2, dtype=x.dtype) / d_k)
    angles = token_positions.to(x.dtype).unsqueeze(-1) * inv_freq  # (..., seq, d_k/2)
    angles = angles.repeat_interleave(2, dim=-1)  # (..., seq, d_k): each pair's angle twice
    rotated = torch.stack((-x[..., 1::2], x[..., 0::2]), dim=-1).flatten(-2)
    return (x * angles.cos() + rotated * angles.sin()).to(in_query_or_key.dtype)
