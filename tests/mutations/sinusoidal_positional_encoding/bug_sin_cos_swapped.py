"""Puts cos in the even columns and sin in the odd ones (remembered the pairs, not which comes first)."""

import torch

DIAGNOSIS = "sin_cos_swapped"


def run_sinusoidal_positional_encoding(positions, d_model, base=10000.0):
    freqs = base ** (-torch.arange(0, d_model, 2).float() / d_model)
    angles = positions.float()[..., None] * freqs
    pe = torch.stack([torch.cos(angles), torch.sin(angles)], dim=-1).flatten(-2)
    return pe[..., :d_model]
