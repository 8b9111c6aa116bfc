"""A keep mask drawn directly: `ops.bernoulli(ones, p=1 - p, seed=generator)` is 1 with probability 1 - p
(the survival probability), and the survivors are scaled by 1/(1 - p). Correct: each entry survives
independently with probability 1 - p, the same seed gives the same mask (seed -1, MindSpore's default, draws
a fresh one), evaluation returns a copy, and p == 1 returns zeros without dividing by 0."""

from mindspore import ops


def run_dropout(in_features, p, training=True, generator=None):
    if not training:
        return in_features.copy()
    if p == 1.0:
        return ops.zeros_like(in_features)
    seed = -1 if generator is None else generator
    keep = ops.bernoulli(ops.ones_like(in_features), p=1.0 - p, seed=seed)  # 1.0 with probability 1 - p
    return in_features * keep / (1.0 - p)
