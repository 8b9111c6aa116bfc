"""An additive mask of 0 / -inf built from two triangles of -inf (the future, and what is too far back)."""

import math

import torch


def run_sliding_window_attention(Q, K, V, window):
    T = Q.shape[-2]
    neg_inf = torch.full((T, T), float("-inf"), dtype=Q.dtype)
    bias = torch.triu(neg_inf, diagonal=1) + torch.tril(neg_inf, diagonal=-window)
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1]) + bias
    return torch.softmax(scores, dim=-1) @ V
