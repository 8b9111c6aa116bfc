"""Allocates the output with positions.new_zeros, which keeps the positions' integer dtype: every sine and
cosine written into it is truncated towards zero and the function returns int64."""

import torch

DIAGNOSIS = None


def run_sinusoidal_positional_encoding(positions, d_model, base=10000.0):
    pe = positions.new_zeros(*positions.shape, d_model)
    freqs = base ** (-torch.arange(0, d_model, 2, dtype=torch.float32) / d_model)
    angles = positions.float()[..., None] * freqs
    pe[..., 0::2] = torch.sin(angles)
    pe[..., 1::2] = torch.cos(angles)[..., : d_model // 2]
    return pe
