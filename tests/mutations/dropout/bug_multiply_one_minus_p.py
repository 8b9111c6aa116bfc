"""Scales the kept values by (1-p) instead of dividing by it: the expected value becomes (1-p)²·x."""

import torch

DIAGNOSIS = None


def run_dropout(in_features, p, training=True, generator=None):
    if not training:
        return in_features.clone()
    keep = torch.rand(in_features.shape, generator=generator, dtype=in_features.dtype) >= p
    return torch.where(keep, in_features * (1 - p), 0.0)
