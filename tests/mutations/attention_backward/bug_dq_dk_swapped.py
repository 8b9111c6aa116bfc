"""Computes both gradients right and returns them as (dK, dQ, dV): with as many queries as keys the shapes
agree, so nothing complains, but each is the other's gradient."""

import math

import torch

DIAGNOSIS = "dq_dk_swapped"


def run_attention_backward(Q, K, V, dO, is_causal=False):
    d_k = Q.shape[-1]
    S = torch.matmul(Q, K.mT) / math.sqrt(d_k)
    if is_causal:
        n_q, n_k = S.shape[-2:]
        S = S.masked_fill(torch.ones(n_q, n_k, dtype=torch.bool).tril(n_k - n_q) == 0, float("-inf"))
    P = torch.softmax(S, dim=-1)
    O = P @ V
    dV = P.mT @ dO
    dP = dO @ V.mT
    dS = P * (dP - (dO * O).sum(-1, keepdim=True))
    grad_q = dS @ K / math.sqrt(d_k)
    grad_k = dS.mT @ Q / math.sqrt(d_k)
    return grad_k, grad_q, dV
