"""Removes the keys that are too far back with tril(diagonal=-(window − 1)), which also removes key
i − window + 1, the oldest one that belongs in the window: only window − 1 keys are left."""

import math

import torch

DIAGNOSIS = "window_minus_one"


def run_sliding_window_attention(Q, K, V, window):
    T = Q.shape[-2]
    ones = torch.ones(T, T, dtype=torch.bool)
    too_far = torch.tril(ones, diagonal=-(window - 1))
    allowed = torch.tril(ones) & ~too_far
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    return torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1) @ V
