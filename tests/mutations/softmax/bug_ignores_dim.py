"""The student always normalises over the last axis, as in every attention example, and ignores `dim`:
wrong whenever `dim` is not the last dimension."""

import torch

DIAGNOSIS = "ignores_dim"


def run_softmax(in_features, dim):
    shifted = in_features - in_features.max(dim=-1, keepdim=True).values
    exps = torch.exp(shifted)
    return exps / exps.sum(dim=-1, keepdim=True)
