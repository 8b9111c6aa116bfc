"""Calls .float() "to be safe" and returns float32 for float64 and bfloat16 inputs: the dtype must be kept."""

import torch

DIAGNOSIS = None


def run_softmax(in_features, dim):
    x = in_features.float()
    exps = torch.exp(x - x.max(dim=dim, keepdim=True).values)
    return exps / exps.sum(dim=dim, keepdim=True)
