"""Copied seed 001's softmax_naive verbatim: exp(x) / exp(x).sum(axis=0). Axis 0 is right only for the
seed's 1-D vector; for a matrix it normalises columns, whatever `dim` says."""

import torch

DIAGNOSIS = "naive_axis0"
ALSO_DIAGNOSED = ("no_max_subtraction",)  # with dim=0 the two bugs are the same function


def run_softmax(in_features, dim):
    return torch.exp(in_features) / torch.exp(in_features).sum(dim=0)
