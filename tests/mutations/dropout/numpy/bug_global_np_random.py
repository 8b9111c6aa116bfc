"""Draws the mask from NumPy's global random state (`np.random.rand`) instead of the `generator` it was
given: the drop rate is right, but two calls with generators seeded alike give different masks."""

import numpy as np

DIAGNOSIS = None


def run_dropout(in_features, p, training=True, generator=None):
    if not training:
        return in_features.copy()
    if p == 1:
        return np.zeros_like(in_features)
    keep = np.random.rand(*in_features.shape) >= p
    return (in_features * keep / (1 - p)).astype(in_features.dtype)
