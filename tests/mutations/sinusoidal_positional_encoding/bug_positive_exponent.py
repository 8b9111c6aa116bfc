"""Multiplies the position by base^(2i/d_model) (the divisor) instead of dividing by it: every pair but the first
spins faster than one radian per position."""

import torch

DIAGNOSIS = "positive_exponent"


def run_sinusoidal_positional_encoding(positions, d_model, base=10000.0):
    div = base ** (torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    angles = positions.double()[..., None] * div
    return torch.stack([angles.sin(), angles.cos()], dim=-1).flatten(-2)[..., :d_model].float()
