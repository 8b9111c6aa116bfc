"""Subtracts the max through `.data` (an old tutorial habit): the values are right, but .data leaves
autograd, so the output is not differentiable and cannot be trained through."""

import torch

DIAGNOSIS = None


def run_softmax(in_features, dim):
    shifted = in_features.data - in_features.data.max(dim=dim, keepdim=True).values
    exps = torch.exp(shifted)
    return exps / exps.sum(dim=dim, keepdim=True)
