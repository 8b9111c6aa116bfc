"""Keeps where rand < 1 - p (also probability 1 - p) and selects with torch.where; p = 1 keeps nothing,
so where() never picks the infinite x / 0."""

import torch


def run_dropout(in_features, p, training=True, generator=None):
    if not training:
        return in_features.clone()
    noise = torch.rand(in_features.shape, generator=generator, dtype=in_features.dtype,
                       device=in_features.device)
    keep = noise < 1 - p
    return torch.where(keep, in_features / (1 - p), torch.zeros_like(in_features))
