"""Computes x * mask / (1 - p): at p = 1 every element is 0 / 0 = NaN instead of 0."""

import torch

DIAGNOSIS = None


def run_dropout(in_features, p, training=True, generator=None):
    if not training:
        return in_features.clone()
    noise = torch.rand(in_features.shape, generator=generator, dtype=in_features.dtype)
    mask = (noise >= p).to(in_features.dtype)
    return in_features * mask / (1 - p)
