"""Encodes the indices 0..seq_len−1 (torch.arange over the last dim), as the Annotated Transformer does for a
batch of embeddings, instead of the positions it is given."""

import torch

DIAGNOSIS = "ignores_positions"


def run_sinusoidal_positional_encoding(positions, d_model, base=10000.0):
    seq_len = positions.shape[-1]
    position = torch.arange(seq_len, dtype=torch.float32).expand(positions.shape)
    freqs = 1.0 / base ** (torch.arange(0, d_model, 2).float() / d_model)
    angles = position[..., None] * freqs
    return torch.stack([angles.sin(), angles.cos()], dim=-1).flatten(-2)[..., :d_model]
