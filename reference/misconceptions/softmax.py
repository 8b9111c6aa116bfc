"""Wrong softmaxes students write (seed 001 §3.3.1 shows two of them on the way to the stable one)."""

import torch


def ignores_dim(in_features, dim):
    """Normalises over the last dim whatever `dim` says."""
    exps = torch.exp(in_features - in_features.amax(dim=-1, keepdim=True))
    return exps / exps.sum(dim=-1, keepdim=True)


def max_along_last_dim(in_features, dim):
    """Subtracts the maximum of the last dim but sums along `dim`: the shift is not constant per slice."""
    exps = torch.exp(in_features - in_features.amax(dim=-1, keepdim=True))
    return exps / exps.sum(dim=dim, keepdim=True)


def plain_sum(in_features, dim):
    """Seed 001's first attempt: scores / scores.sum(), no exp."""
    return in_features / in_features.sum(dim=dim, keepdim=True)


def naive_axis0(in_features, dim):
    """Seed 001's softmax_naive: exp(x) / exp(x).sum(axis=0), whatever `dim` says."""
    exps = torch.exp(in_features)
    return exps / exps.sum(dim=0)


def global_max(in_features, dim):
    """Subtracts the maximum of the whole tensor: slices far below it underflow to 0/0 = NaN."""
    exps = torch.exp(in_features - in_features.max())
    return exps / exps.sum(dim=dim, keepdim=True)


def no_max_subtraction(in_features, dim):
    """exp(x) / sum exp(x) along `dim` with no shift: overflows to inf/inf = NaN for scores in the hundreds."""
    exps = torch.exp(in_features)
    return exps / exps.sum(dim=dim, keepdim=True)
