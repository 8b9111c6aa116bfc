"""Draws the noise from the global RNG (torch.rand without generator=), so results are not reproducible
from the generator the caller passes."""

import torch

DIAGNOSIS = None


def run_dropout(in_features, p, training=True, generator=None):
    if not training:
        return in_features.clone()
    if p == 1:
        return torch.zeros_like(in_features)
    keep = torch.rand_like(in_features) >= p
    return torch.where(keep, in_features / (1 - p), 0.0)
