"""torch.triu where torch.tril is meant: query i is allowed to see itself and every FUTURE key."""

import torch

DIAGNOSIS = "upper_triangle"


def run_causal_mask(seq_len, device=None):
    return torch.triu(torch.ones(seq_len, seq_len, device=device)).bool()
