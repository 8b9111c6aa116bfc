"""Longformer-style local attention, |i − j| < window: the band extends into the future."""

import math

import torch

DIAGNOSIS = "symmetric_band"


def run_sliding_window_attention(Q, K, V, window):
    pos = torch.arange(Q.shape[-2])
    allowed = (pos[:, None] - pos[None, :]).abs() < window
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    return torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1) @ V
