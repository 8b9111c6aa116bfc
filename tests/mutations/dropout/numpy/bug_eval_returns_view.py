"""At evaluation time returns `np.asarray(in_features)` "to be sure it is an array": np.asarray of an
ndarray is the same array, so the caller gets its own input back and a later write to the result changes it."""

import numpy as np

DIAGNOSIS = None


def run_dropout(in_features, p, training=True, generator=None):
    if not training:
        return np.asarray(in_features)
    if p == 1:
        return np.zeros_like(in_features)
    keep = generator.random(in_features.shape) >= p
    return np.where(keep, in_features / (1 - p), 0).astype(in_features.dtype)
