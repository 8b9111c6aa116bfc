"""Compares column indices with row indices by broadcasting: key j is allowed for query i where j <= i."""

import numpy as np


def run_causal_mask(seq_len, device=None):
    positions = np.arange(seq_len)
    return positions[None, :] <= positions[:, None]
