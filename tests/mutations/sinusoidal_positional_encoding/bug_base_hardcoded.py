"""Writes 10000.0 as in the paper instead of using `base`."""

import math

import torch

DIAGNOSIS = "base_hardcoded"


def run_sinusoidal_positional_encoding(positions, d_model, base=10000.0):
    div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
    angles = positions.float()[..., None] * div_term
    return torch.stack([angles.sin(), angles.cos()], dim=-1).flatten(-2)[..., :d_model]
