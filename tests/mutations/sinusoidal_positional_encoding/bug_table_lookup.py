"""Builds the Annotated Transformer's table for positions 0..max_len−1 (max_len = 5000, one column more for an
odd d_model) and indexes it with the positions: a negative position silently reads a row from the end of the
table, and one of 5000 or more is an IndexError."""

import math

import torch

DIAGNOSIS = None
MAX_LEN = 5000


def run_sinusoidal_positional_encoding(positions, d_model, base=10000.0):
    width = d_model + d_model % 2
    pe = torch.zeros(MAX_LEN, width)
    position = torch.arange(0, MAX_LEN).unsqueeze(1).float()
    div_term = torch.exp(torch.arange(0, width, 2).float() * -(math.log(base) / d_model))
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe[:, :d_model][positions]
