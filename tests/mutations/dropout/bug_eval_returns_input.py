"""Returns the input tensor itself when training=False; the caller then holds two names for one tensor,
and an in-place change to the output would change the input (the exercise asks for a new tensor)."""

import torch

DIAGNOSIS = None


def run_dropout(in_features, p, training=True, generator=None):
    if not training:
        return in_features
    if p == 1.0:
        return torch.zeros_like(in_features)
    keep = torch.rand(in_features.shape, generator=generator, dtype=in_features.dtype) >= p
    return torch.where(keep, in_features / (1 - p), 0.0)
