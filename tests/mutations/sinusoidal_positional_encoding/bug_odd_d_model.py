"""The Annotated Transformer's assignment pe[:, 0::2] = sin, pe[:, 1::2] = cos with div_term of length
ceil(d_model / 2): right for even d_model, a shape error for odd ones (the cosine columns are one fewer)."""

import math

import torch

DIAGNOSIS = None


def run_sinusoidal_positional_encoding(positions, d_model, base=10000.0):
    position = positions.unsqueeze(-1).float()
    div_term = torch.exp(torch.arange(0, d_model, 2).float() * -(math.log(base) / d_model))
    pe = torch.zeros(*positions.shape, d_model)
    pe[..., 0::2] = torch.sin(position * div_term)
    pe[..., 1::2] = torch.cos(position * div_term)
    return pe
