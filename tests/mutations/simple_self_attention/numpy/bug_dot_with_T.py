"""Seed 001's `inputs @ inputs.T` written with np.dot: right for one (seq, d_in) matrix, but on a batched
array `.T` reverses ALL axes and np.dot sums over the last axis of one and the second-to-last of the
other, so the shapes no longer match (or, for lucky shapes, batch and feature axes get mixed)."""

import numpy as np

DIAGNOSIS = None


def run_simple_self_attention(inputs):
    scores = np.dot(inputs, inputs.T)
    exps = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = exps / exps.sum(axis=-1, keepdims=True)
    return np.dot(weights, inputs)
