"""Seed 001's softmax_naive along `dim`, without subtracting the maximum: exp overflows to inf for
scores in the hundreds (inf/inf = NaN) and underflows to 0/0 for very negative ones."""

import torch

DIAGNOSIS = "no_max_subtraction"
ALSO_DIAGNOSED = ("naive_axis0",)  # with dim=0 the two bugs are the same function


def run_softmax(in_features, dim):
    exps = torch.exp(in_features)
    return exps / exps.sum(dim=dim, keepdim=True)
