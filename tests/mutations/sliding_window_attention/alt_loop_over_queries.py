"""One query at a time over the slice of keys it may see, the start clamped at 0."""

import math

import torch


def run_sliding_window_attention(Q, K, V, window):
    out = []
    for i in range(Q.shape[-2]):
        start = max(0, i - window + 1)
        scores = Q[..., i : i + 1, :] @ K[..., start : i + 1, :].transpose(-2, -1) / math.sqrt(Q.shape[-1])
        out.append(torch.softmax(scores, dim=-1) @ V[..., start : i + 1, :])
    return torch.cat(out, dim=-2)
