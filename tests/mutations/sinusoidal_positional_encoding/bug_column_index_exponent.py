"""Reads PE(pos, j) = sin or cos of pos / base^(j/d_model) with j the column: the cosine in column 2i+1 gets
the exponent (2i+1)/d_model, another frequency than the sine beside it."""

import torch

DIAGNOSIS = "column_exponent"


def run_sinusoidal_positional_encoding(positions, d_model, base=10000.0):
    j = torch.arange(d_model, dtype=torch.float32)
    angles = positions.float().unsqueeze(-1) / torch.pow(base, j / d_model)
    return torch.where(j % 2 == 0, torch.sin(angles), torch.cos(angles))
