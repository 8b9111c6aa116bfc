"""Copied fairseq's SinusoidalPositionalEmbedding.get_embedding: half_dim = d_model // 2, frequencies
exp(−i·ln(base)/(half_dim − 1)) and cat([sin, cos]); an odd d_model gets a zero column at the end. Another
convention than the paper's (and this exercise's) interleaved base^(−2i/d_model)."""

import math

import torch

DIAGNOSIS = None


def run_sinusoidal_positional_encoding(positions, d_model, base=10000.0):
    half_dim = d_model // 2
    emb = math.log(base) / max(half_dim - 1, 1)
    emb = torch.exp(torch.arange(half_dim, dtype=torch.float) * -emb)
    emb = positions.float().unsqueeze(-1) * emb
    emb = torch.cat([torch.sin(emb), torch.cos(emb)], dim=-1)
    if d_model % 2 == 1:
        emb = torch.cat([emb, torch.zeros(*emb.shape[:-1], 1)], dim=-1)
    return emb
