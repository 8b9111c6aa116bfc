"""Fills forbidden scores with the most negative finite number of the dtype instead of -inf: exp of it is
exactly 0 after the max is subtracted, and no -inf ever enters the graph."""

import math

import torch


def run_scaled_dot_product_attention(Q, K, V, mask=None):
    scores = torch.matmul(Q, K.transpose(-1, -2)) * (1.0 / math.sqrt(K.shape[-1]))
    if mask is not None:
        scores = scores.masked_fill(~mask.bool(), torch.finfo(scores.dtype).min)
    return torch.matmul(torch.softmax(scores, dim=-1), V)
