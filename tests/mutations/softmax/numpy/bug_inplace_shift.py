"""`x -= x.max(...)` to save memory: the values are right, but NumPy's augmented assignment writes into
the caller's array (the scores the caller still holds are now shifted)."""

import numpy as np

DIAGNOSIS = None


def run_softmax(in_features, dim):
    in_features -= in_features.max(axis=dim, keepdims=True)
    exps = np.exp(in_features)
    return exps / exps.sum(axis=dim, keepdims=True)
