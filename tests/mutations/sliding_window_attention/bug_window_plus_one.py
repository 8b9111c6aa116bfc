"""Bands the causal mask with triu(diagonal=-window), keeping keys i − window .. i: window + 1 of them, the
convention of FlashAttention's window_size=(window, 0), where the query itself is not counted."""

import math

import torch

DIAGNOSIS = "window_plus_one"


def run_sliding_window_attention(Q, K, V, window):
    T = Q.shape[-2]
    mask = torch.tril(torch.ones(T, T))
    mask = torch.triu(mask, diagonal=-window)
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    scores = scores.masked_fill(mask == 0, float("-inf"))
    return torch.softmax(scores, dim=-1) @ V
