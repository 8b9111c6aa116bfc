"""torch.cat([sin, cos], -1): the layout of tensor2tensor's get_timing_signal_1d and of many blog posts, with the
exercise's frequencies. The sines fill the first half and the cosines the second, so columns 2i and 2i+1 are
two sines of different frequencies."""

import math

import torch

DIAGNOSIS = "halves_concatenated"


def run_sinusoidal_positional_encoding(positions, d_model, base=10000.0):
    div_term = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(base) / d_model))
    angles = positions.unsqueeze(-1).float() * div_term
    return torch.cat([torch.sin(angles), torch.cos(angles)], dim=-1)[..., :d_model]
