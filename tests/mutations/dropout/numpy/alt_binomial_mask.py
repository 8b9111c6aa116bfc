"""CS231n's inverted dropout: a 0/1 mask from `generator.binomial(1, 1 - p, size)` (each entry kept with
probability 1 - p), multiplied in and divided by 1 - p."""

import numpy as np


def run_dropout(in_features, p, training=True, generator=None):
    if not training:
        return in_features.copy()
    if p == 1.0:
        return np.zeros_like(in_features)
    rng = generator if generator is not None else np.random.default_rng()
    mask = rng.binomial(1, 1.0 - p, size=in_features.shape) / (1.0 - p)
    return (in_features * mask).astype(in_features.dtype)
