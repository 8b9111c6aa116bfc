"""Scales by √K.size(-2), the number of keys, instead of √K.size(-1), their dimension d_k (an index slip)."""

import math

import torch

DIAGNOSIS = None


def run_scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.size(-2))
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    return torch.softmax(scores, dim=-1) @ V
