"""Draws one random number per column (torch.rand(x.shape[-1])) and broadcasts it over the rows: every row
drops the same positions, so the drops are not independent per element."""

import torch

DIAGNOSIS = None


def run_dropout(in_features, p, training=True, generator=None):
    if not training:
        return in_features.clone()
    if p == 1.0:
        return torch.zeros_like(in_features)
    keep = torch.rand(in_features.shape[-1], generator=generator, dtype=in_features.dtype) >= p
    return torch.where(keep, in_features / (1 - p), 0.0)
