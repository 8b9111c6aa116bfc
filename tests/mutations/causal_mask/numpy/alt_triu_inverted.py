"""Seed 001's masked_fill mask, np.triu(ones, k=1) (True above the diagonal: the future), inverted with ~ to
give the allowed positions: True on and below the diagonal."""

import numpy as np


def run_causal_mask(seq_len, device=None):
    future = np.triu(np.ones((seq_len, seq_len), dtype=bool), k=1)
    return ~future
