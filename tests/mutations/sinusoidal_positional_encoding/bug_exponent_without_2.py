"""Exponent i/d_model with i counting pairs (torch.arange(d_model // 2) / d_model): the slowest pair turns
at base^(−1/2) instead of about 1/base, so distant positions look alike."""

import torch

DIAGNOSIS = "exponent_without_2"


def run_sinusoidal_positional_encoding(positions, d_model, base=10000.0):
    i = torch.arange((d_model + 1) // 2, dtype=torch.float32)
    angles = positions[..., None].float() / base ** (i / d_model)
    pe = torch.zeros(*positions.shape, d_model)
    pe[..., 0::2] = torch.sin(angles)
    pe[..., 1::2] = torch.cos(angles[..., : d_model // 2])
    return pe
