"""Copies seeds 001/002's `triu(ones, diagonal=1)`, which marks the MASKED positions, and returns it as
the allowed ones: exactly the inverse of the required mask."""

import torch

DIAGNOSIS = "inverted_convention"
ALSO_DIAGNOSED = ("diagonal_excluded",)  # on one token its mask [[False]] does exclude the diagonal


def run_causal_mask(seq_len, device=None):
    mask = torch.triu(torch.ones(seq_len, seq_len, device=device), diagonal=1)
    return mask.bool()
