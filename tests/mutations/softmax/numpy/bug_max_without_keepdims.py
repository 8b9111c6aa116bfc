"""`np.max(x, axis=dim)` without keepdims=True: the maximum loses the reduced axis, so `x - max` lines the
(rows,) vector up with the LAST axis. For dim=0 that happens to be right, for dim=-1 on a (3, 5) array it
raises a broadcast error, and on a square array it would silently subtract the wrong maxima."""

import numpy as np

DIAGNOSIS = None


def run_softmax(in_features, dim):
    exps = np.exp(in_features - np.max(in_features, axis=dim))
    return exps / np.sum(exps, axis=dim)
