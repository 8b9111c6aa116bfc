"""Starts from seeds 001/002's mask of the future, triu(diagonal=1), and negates it: allowed = not future."""

import torch


def run_causal_mask(seq_len, device=None):
    future = torch.triu(torch.ones(seq_len, seq_len, dtype=torch.bool, device=device), diagonal=1)
    return ~future
