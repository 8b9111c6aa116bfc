"""Transposes K with .T as in seed 001's `queries @ keys.T`: fine for one matrix, but on batched keys
.T reverses every dim and the matmul fails or pairs the wrong axes."""

import math

import torch

DIAGNOSIS = None


def run_scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ K.T / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    return torch.softmax(scores, dim=-1) @ V
