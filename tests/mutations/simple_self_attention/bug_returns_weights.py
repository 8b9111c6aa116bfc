"""Stops after the softmax and returns the attention weights (..., seq, seq) instead of the context
vectors weights @ inputs (..., seq, d_in)."""

import torch

DIAGNOSIS = None


def run_simple_self_attention(inputs):
    scores = inputs @ inputs.transpose(-2, -1)
    return torch.softmax(scores, dim=-1)
