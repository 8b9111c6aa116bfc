"""Recomputes P for the backward pass without the causal mask (the mask 'belongs to the forward'): every
query's weights then spread over future keys too."""

import math

import torch

DIAGNOSIS = "causal_mask_forgotten"


def run_attention_backward(Q, K, V, dO, is_causal=False):
    d_k = Q.shape[-1]
    P = torch.softmax(torch.matmul(Q, K.mT) / math.sqrt(d_k), dim=-1)
    O = P @ V
    dV = P.mT @ dO
    dP = dO @ V.mT
    dS = P * (dP - (dO * O).sum(-1, keepdim=True))
    return dS @ K / math.sqrt(d_k), dS.mT @ Q / math.sqrt(d_k), dV
