"""Compares arange(seq)[:, None] <= arange(seq)[None, :], i.e. query <= key with the axes swapped:
the transpose of the causal mask (upper triangle)."""

import torch

DIAGNOSIS = "upper_triangle"


def run_causal_mask(seq_len, device=None):
    i = torch.arange(seq_len, device=device)
    return i[:, None] <= i[None, :]
