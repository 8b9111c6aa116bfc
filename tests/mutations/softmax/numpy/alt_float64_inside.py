"""Computes in float64 for safety (np.float64 everywhere) and casts back to the input's dtype at the end,
the way many NumPy courses teach numerical stability."""

import numpy as np


def run_softmax(in_features, dim):
    x = np.asarray(in_features, dtype=np.float64)
    shifted = x - np.max(x, axis=dim, keepdims=True)
    exps = np.exp(shifted)
    return (exps / np.sum(exps, axis=dim, keepdims=True)).astype(in_features.dtype)
