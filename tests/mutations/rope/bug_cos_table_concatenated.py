"""Mixes the conventions: builds the cos/sin tables the rotate-half way, cat([freqs, freqs]), but swaps
interleaved neighbours; feature j then uses frequency j mod d_k/2, and the two members of a pair turn
by different angles, which is not even a rotation."""

import torch

DIAGNOSIS = "cos_sin_concatenated"


def run_rope(d_k, theta, max_seq_len, in_query_or_key, token_positions):
    x = in_query_or_key.to(torch.promote_types(in_query_or_key.dtype, torch.float32))
    freqs = theta ** (-torch.arange(0, d_k, 2, dtype=x.dtype) / d_k)
    angles = token_positions.to(x.dtype).unsqueeze(-1) * freqs
    emb = torch.cat((angles, angles), dim=-1)  # (..., seq, d_k)
    swapped = torch.stack((-x[..., 1::2], x[..., 0::2]), dim=-1).flatten(-2)  # (-x1, x0, -x3, x2, ...)
    return (x * emb.cos() + swapped * emb.sin()).to(in_query_or_key.dtype)
