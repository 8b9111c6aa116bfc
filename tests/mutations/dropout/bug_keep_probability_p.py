"""Treats p as the probability of KEEPING an element (rand < p), so p=0.1 drops 90%, p=0 drops everything
and p=1 keeps everything divided by zero."""

import torch

DIAGNOSIS = "keeps_with_probability_p"


def run_dropout(in_features, p, training=True, generator=None):
    if not training:
        return in_features.clone()
    keep = torch.rand(in_features.shape, generator=generator, dtype=in_features.dtype) < p
    return torch.where(keep, in_features / (1 - p), 0.0)
