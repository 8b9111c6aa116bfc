"""Computes in float64 for accuracy and forgets to cast back: the encoding is added to float32 embeddings, and a
float64 one would silently promote the whole model."""

import torch

DIAGNOSIS = None


def run_sinusoidal_positional_encoding(positions, d_model, base=10000.0):
    freqs = base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    angles = positions.to(torch.float64)[..., None] * freqs
    return torch.stack([angles.sin(), angles.cos()], dim=-1).flatten(-2)[..., :d_model]
