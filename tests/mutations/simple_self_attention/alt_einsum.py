"""Seed 004's einsum spelling: scores "... q d, ... k d -> ... q k", context "... q k, ... k d -> ... q d"."""

import torch


def run_simple_self_attention(inputs):
    scores = torch.einsum("...qd,...kd->...qk", inputs, inputs)
    weights = torch.softmax(scores, dim=-1)
    return torch.einsum("...qk,...kd->...qd", weights, inputs)
