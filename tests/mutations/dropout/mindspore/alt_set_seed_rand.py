"""The global-seed style of seed 001: `mindspore.set_seed(generator)`, then `ops.rand` and a float mask."""

import mindspore
from mindspore import ops


def run_dropout(in_features, p, training=True, generator=None):
    if not training:
        return in_features.copy()
    if p == 1.0:
        return ops.zeros_like(in_features)
    if generator is not None:
        mindspore.set_seed(generator)
    mask = (ops.rand(*in_features.shape) >= p).astype(in_features.dtype)
    return in_features * mask / (1.0 - p)
