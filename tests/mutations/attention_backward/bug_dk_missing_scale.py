"""Scales dQ by 1/√d_k but forgets it in dK: S = Q Kᵀ / √d_k depends on K through the same scale."""

import math

import torch

DIAGNOSIS = "dk_missing_scale"


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
    dQ = dS @ K / math.sqrt(d_k)
    dK = dS.mT @ Q
    return dQ, dK, dV
