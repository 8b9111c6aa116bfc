"""The student zeroes the dropped entries with item assignment on the input itself (`in_features[~keep] = 0`),
which MindSpore does in place: the caller's attention weights are changed."""

from mindspore import ops

DIAGNOSIS = None


def run_dropout(in_features, p, training=True, generator=None):
    if not training:
        return in_features.copy()
    if p == 1.0:
        return ops.zeros_like(in_features)
    keep = ops.UniformReal(seed=generator or 0)(in_features.shape) >= p
    in_features[~keep] = 0.0
    return in_features / (1.0 - p)
