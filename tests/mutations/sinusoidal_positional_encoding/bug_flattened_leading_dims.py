"""positions.view(-1, 1), written for one sequence: a (batch, seq) tensor of positions comes back as
(batch·seq, d_model)."""

import torch

DIAGNOSIS = None


def run_sinusoidal_positional_encoding(positions, d_model, base=10000.0):
    position = positions.reshape(-1, 1).float()  # (seq, 1)
    freqs = 1.0 / (base ** (torch.arange(0, d_model, 2).float() / d_model))
    angles = position * freqs  # (seq, pairs)
    return torch.stack([angles.sin(), angles.cos()], dim=-1).flatten(-2)[..., :d_model]
