"""`np.tril(np.ones((n, n)))`: the right triangle, but np.ones defaults to float64, so the mask is a
float64 matrix of 1.0 and 0.0 instead of a bool array."""

import numpy as np

DIAGNOSIS = None


def run_causal_mask(seq_len, device=None):
    return np.tril(np.ones((seq_len, seq_len)))
