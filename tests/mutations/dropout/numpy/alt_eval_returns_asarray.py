"""At evaluation time returns `np.asarray(in_features)` "to be sure it is an array": np.asarray of an
ndarray is the same array, so the caller gets its own input back, as torch's and MindSpore's own dropout
return it in eval mode; the values are unchanged, which is all eval mode asks (spec/dropout.yaml
identity_when)."""

import numpy as np


def run_dropout(in_features, p, training=True, generator=None):
    if not training:
        return np.asarray(in_features)
    if p == 1:
        return np.zeros_like(in_features)
    keep = generator.random(in_features.shape) >= p
    return np.where(keep, in_features / (1 - p), 0).astype(in_features.dtype)
