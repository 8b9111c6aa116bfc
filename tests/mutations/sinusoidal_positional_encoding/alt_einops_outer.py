"""Outer product with einsum, then einops packs (pairs, 2) into interleaved columns."""

import torch
from einops import rearrange


def run_sinusoidal_positional_encoding(positions, d_model, base=10000.0):
    exponents = torch.arange(0, d_model, 2, device=positions.device) / d_model
    inv_freq = 1.0 / (base ** exponents)
    angles = torch.einsum("...,f->...f", positions.float(), inv_freq.float())
    pe = rearrange([angles.sin(), angles.cos()], "two ... f -> ... (f two)")
    return pe[..., :d_model].contiguous()
