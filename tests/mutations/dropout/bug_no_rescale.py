"""Zeroes elements with probability p but does not scale the survivors by 1/(1-p), so the expected value
shrinks to (1-p)·x (plain dropout, not inverted dropout)."""

import torch

DIAGNOSIS = None


def run_dropout(in_features, p, training=True, generator=None):
    if not training or p == 0:
        return in_features.clone()
    keep = torch.rand(in_features.shape, generator=generator, dtype=in_features.dtype) >= p
    return in_features * keep
