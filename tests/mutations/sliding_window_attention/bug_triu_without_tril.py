"""Builds the window's far edge with triu(diagonal=-(window − 1)) and forgets to intersect it with the causal
lower triangle: every query also sees the whole future."""

import math

import torch

DIAGNOSIS = "lower_edge_only"
# with window >= seq_len (case window_longer_than_sequence) nothing is masked at all, as with |i - j| < window
ALSO_DIAGNOSED = ("symmetric_band",)


def run_sliding_window_attention(Q, K, V, window):
    T = Q.shape[-2]
    allowed = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=-(window - 1))
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    return torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1) @ V
