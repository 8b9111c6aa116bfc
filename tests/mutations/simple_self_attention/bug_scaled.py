"""Divides the scores by √d_in as in scaled dot-product attention; this exercise (seed 001 §3.3) has no
scaling, so the weights come out flatter than expected."""

import math

import torch

DIAGNOSIS = "scaled_scores"


def run_simple_self_attention(inputs):
    scores = inputs @ inputs.transpose(-2, -1) / math.sqrt(inputs.shape[-1])
    return torch.softmax(scores, dim=-1) @ inputs
