"""Recomputes P as exp(S) / rowsum(exp(S)) without subtracting the row max: right for small scores, but
exp overflows to inf for scores in the hundreds and the gradients become NaN."""

import math

import torch

DIAGNOSIS = None


def run_attention_backward(Q, K, V, dO, is_causal=False):
    d_k = Q.shape[-1]
    S = Q @ K.mT / math.sqrt(d_k)
    E = torch.exp(S)
    if is_causal:
        n_q, n_k = S.shape[-2:]
        E = E * torch.ones(n_q, n_k).tril(n_k - n_q)
    P = E / E.sum(-1, keepdim=True)
    O = P @ V
    dV = P.mT @ dO
    dP = dO @ V.mT
    dS = P * (dP - (dO * O).sum(-1, keepdim=True))
    return dS @ K / math.sqrt(d_k), dS.mT @ Q / math.sqrt(d_k), dV
