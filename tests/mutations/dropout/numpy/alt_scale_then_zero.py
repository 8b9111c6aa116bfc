"""Scales a float64 copy by 1/(1-p) first, then zeroes the dropped entries in place with boolean-index
assignment (`out[drop] = 0`) before casting back: the in-place write is on the new array, never on the input."""

import numpy as np


def run_dropout(in_features, p, training=True, generator=None):
    out = in_features.astype(np.float64)  # a copy, even when the input is float64
    if not training:
        return out.astype(in_features.dtype)
    rng = generator or np.random.default_rng()
    drop = rng.random(out.shape) < p
    if p < 1.0:
        out /= 1.0 - p
    out[drop] = 0.0
    return out.astype(in_features.dtype)
