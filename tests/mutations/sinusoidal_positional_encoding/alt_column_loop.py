"""The paper's formula column by column: column j belongs to pair i = j // 2 and is a sine when j is even."""

import torch


def run_sinusoidal_positional_encoding(positions, d_model, base=10000.0):
    p = positions.to(torch.float64)
    columns = []
    for j in range(d_model):
        i = j // 2
        angle = p / base ** (2 * i / d_model)
        columns.append(torch.sin(angle) if j % 2 == 0 else torch.cos(angle))
    return torch.stack(columns, dim=-1).to(torch.float32)
