"""Seed 001 §3.5.2 calls `mindspore.set_seed(123)` before its dropout; the student keeps that line instead of
using `generator`, so every call draws the same mask whatever seed it is given."""

import mindspore
from mindspore import ops

DIAGNOSIS = None


def run_dropout(in_features, p, training=True, generator=None):
    if not training:
        return in_features.copy()
    if p == 1.0:
        return ops.zeros_like(in_features)
    mindspore.set_seed(123)
    keep = ops.rand(*in_features.shape) >= p
    return ops.where(keep, in_features / (1.0 - p), ops.zeros_like(in_features))
