"""The Annotated Transformer's float32 recipe (div_term = exp(2i·(−ln base / d_model)), strided assignment
into a zero tensor), applied to the given positions and with the cosine columns cut for an odd d_model."""

import math

import torch


def run_sinusoidal_positional_encoding(positions, d_model, base=10000.0):
    position = positions.unsqueeze(-1).to(torch.float32)  # (..., 1)
    div_term = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * -(math.log(base) / d_model))
    pe = torch.zeros(*positions.shape, d_model, device=positions.device)
    pe[..., 0::2] = torch.sin(position * div_term)
    pe[..., 1::2] = torch.cos(position * div_term)[..., : d_model // 2]
    return pe
