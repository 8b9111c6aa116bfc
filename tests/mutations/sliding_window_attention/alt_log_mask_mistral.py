"""A 1/0 float band turned into 0/-inf with log, the way Mistral's reference code writes its masks, with the
band edge at diagonal -(window - 1) so the query itself counts."""

import math

import torch


def run_sliding_window_attention(Q, K, V, window):
    T = Q.shape[-2]
    mask = torch.tril(torch.ones(T, T, dtype=Q.dtype), diagonal=0)
    mask = torch.triu(mask, diagonal=-(window - 1))
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1]) + torch.log(mask)
    return torch.softmax(scores, dim=-1) @ V
