"""Saves memory with `in_features -= max`: the values are right but the caller's tensor is overwritten
(the scores a caller may still need)."""

import torch

DIAGNOSIS = None


def run_softmax(in_features, dim):
    in_features -= in_features.max(dim=dim, keepdim=True).values
    exps = torch.exp(in_features)
    return exps / exps.sum(dim=dim, keepdim=True)
