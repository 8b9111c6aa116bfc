"""Returns the input tensor itself when training=False, as torch.nn.functional.dropout and torch.nn.Dropout do
in eval mode: the values are unchanged, which is all eval mode asks (spec/dropout.yaml identity_when)."""

import torch


def run_dropout(in_features, p, training=True, generator=None):
    if not training:
        return in_features
    if p == 1.0:
        return torch.zeros_like(in_features)
    keep = torch.rand(in_features.shape, generator=generator, dtype=in_features.dtype) >= p
    return torch.where(keep, in_features / (1 - p), 0.0)
