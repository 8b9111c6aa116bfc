"""Seed 001's `inputs @ inputs.T`, right for one (seq, d_in) matrix; on a batch .T reverses ALL dims,
so the matmul pairs the wrong axes (it raises here, or silently mixes batch and features)."""

import torch

DIAGNOSIS = None


def run_simple_self_attention(inputs):
    scores = inputs @ inputs.T
    weights = torch.softmax(scores, dim=-1)
    return weights @ inputs
