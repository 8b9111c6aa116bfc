"""Knows seed 001's mask `triu(ones, diagonal=1)` marks the positions to HIDE and negates it, but writes
np.triu's default k=0: the diagonal is hidden too, so no token may attend to itself."""

import numpy as np

DIAGNOSIS = "diagonal_excluded"


def run_causal_mask(seq_len, device=None):
    return ~np.triu(np.ones((seq_len, seq_len), dtype=bool))
