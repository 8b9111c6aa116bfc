"""Turns the 0/1 mask into an additive bias with log: log(1) = 0 keeps a score, log(0) = -inf removes it."""

import math

import torch


def run_scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores + torch.log(mask.to(scores.dtype))
    return torch.softmax(scores, dim=-1) @ V
