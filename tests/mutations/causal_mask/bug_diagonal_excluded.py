"""Uses a strict comparison key < query, off by one: a token may not attend to itself, and the first
token attends to nothing at all."""

import torch

DIAGNOSIS = "diagonal_excluded"


def run_causal_mask(seq_len, device=None):
    positions = torch.arange(seq_len, device=device)
    return positions[None, :] < positions[:, None]  # (query, key): key strictly before query
