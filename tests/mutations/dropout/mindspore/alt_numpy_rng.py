"""The random numbers from NumPy: `np.random.default_rng(generator).random(shape)`, compared with p into a
keep mask that becomes a `mindspore.Tensor`; `ops.where` puts zeros where it is False. Correct: NumPy's
generator seeded with the same int gives the same uniforms, an entry is kept where its uniform is >= p
(probability 1 - p) and scaled by 1/(1 - p); eval mode returns a copy, p == 1 returns zeros."""

import numpy as np
from mindspore import Tensor, ops


def run_dropout(in_features, p, training=True, generator=None):
    if not training:
        return in_features.copy()
    if p == 1.0:
        return ops.zeros_like(in_features)
    rng = np.random.default_rng(generator)
    keep = Tensor(rng.random(in_features.shape) >= p)  # bool, True with probability 1 - p
    return ops.where(keep, in_features / (1.0 - p), ops.zeros_like(in_features))
