"""Loops over queries and slices K[..., i - window + 1 : i + 1] without clamping the start at 0: for the first
window − 1 queries the negative start counts from the end, and the slice is empty or wrong."""

import math

import torch

DIAGNOSIS = None


def run_sliding_window_attention(Q, K, V, window):
    rows = []
    for i in range(Q.shape[-2]):
        k = K[..., i - window + 1 : i + 1, :]
        v = V[..., i - window + 1 : i + 1, :]
        s = Q[..., i : i + 1, :] @ k.transpose(-2, -1) / math.sqrt(Q.shape[-1])
        rows.append(torch.softmax(s, dim=-1) @ v)
    return torch.cat(rows, dim=-2)
