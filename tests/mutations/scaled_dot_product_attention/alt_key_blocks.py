"""FlashAttention-style: visit the keys in blocks, keeping per query a running max, normaliser and weighted
sum of V, rescaled whenever the max grows. Same result, never the full weight matrix at once."""

import math

import torch

BLOCK = 3  # keys per block


def run_scaled_dot_product_attention(Q, K, V, mask=None):
    running_max = running_sum = acc = None
    for start in range(0, K.shape[-2], BLOCK):
        keys = slice(start, start + BLOCK)
        s = Q @ K[..., keys, :].transpose(-2, -1) / math.sqrt(Q.shape[-1])  # (..., queries, block)
        if mask is not None:
            s = s.masked_fill(mask[..., keys] == 0, float("-inf"))
        if running_max is None:  # a finite start, so a fully masked first block never computes -inf - -inf
            running_max = torch.full_like(s[..., :1], torch.finfo(s.dtype).min)
            running_sum, acc = torch.zeros_like(running_max), 0.0
        new_max = torch.maximum(running_max, s.amax(dim=-1, keepdim=True))
        p = torch.exp(s - new_max)
        rescale = torch.exp(running_max - new_max)
        running_sum = running_sum * rescale + p.sum(dim=-1, keepdim=True)
        acc = acc * rescale + p @ V[..., keys, :]
        running_max = new_max
    return acc / running_sum
