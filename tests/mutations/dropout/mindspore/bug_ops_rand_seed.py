"""The student passes the seed to `ops.rand(..., seed=generator)`. MindSpore combines that seed with a counter
that advances on every call, so two calls with the same seed draw different masks: the generator's seed
does not make the mask reproducible."""

from mindspore import ops

DIAGNOSIS = None


def run_dropout(in_features, p, training=True, generator=None):
    if not training:
        return in_features.copy()
    if p == 1.0:
        return ops.zeros_like(in_features)
    keep = ops.rand(*in_features.shape, seed=generator) >= p
    return ops.where(keep, in_features / (1.0 - p), ops.zeros_like(in_features))
