"""A correct dropout that draws its keep-mask with torch.bernoulli from the given generator (PyTorch's own
idiom), not with torch.rand(...) >= p as the reference does: the masks differ, and it is just as right."""
import torch


def run_dropout(in_features, p, training=True, generator=None):
    if not training:
        return in_features.clone()
    if p == 1.0:
        return torch.zeros_like(in_features)
    keep = torch.bernoulli(torch.full_like(in_features, 1.0 - p), generator=generator)
    return in_features * keep / (1.0 - p)
