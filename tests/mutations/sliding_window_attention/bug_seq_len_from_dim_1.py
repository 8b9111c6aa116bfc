"""Takes the sequence length from Q.size(1), written for (batch, seq, d) inputs: with heads or without a batch
dim the mask has the wrong size."""

import math

import torch

DIAGNOSIS = None


def run_sliding_window_attention(Q, K, V, window):
    T = Q.size(1)
    i = torch.arange(T).view(T, 1)
    j = torch.arange(T).view(1, T)
    allowed = (j <= i) & (j > i - window)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(Q.size(-1))
    return torch.matmul(torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1), V)
