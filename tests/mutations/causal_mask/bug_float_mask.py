"""Returns seed 000's `torch.tril(torch.ones(T, T))` as is: the right pattern but a float matrix of ones
and zeros, not the bool mask the exercise asks for."""

import torch

DIAGNOSIS = None


def run_causal_mask(seq_len, device=None):
    return torch.tril(torch.ones(seq_len, seq_len, device=device))
