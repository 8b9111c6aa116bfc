"""Remembers that the softmax's backward subtracts a row sum but sums the wrong thing: D = rowsum(dP)
instead of rowsum(P ∘ dP) (which equals rowsum(dO ∘ O))."""

import math

import torch

DIAGNOSIS = "rowsum_of_dP"


def run_attention_backward(Q, K, V, dO, is_causal=False):
    scale = 1 / math.sqrt(Q.shape[-1])
    S = Q @ K.transpose(-2, -1) * scale
    if is_causal:
        n_q, n_k = S.shape[-2:]
        S = S.masked_fill(torch.ones(n_q, n_k, dtype=torch.bool).tril(n_k - n_q) == 0, float("-inf"))
    P = torch.softmax(S, dim=-1)
    dV = P.transpose(-2, -1) @ dO
    dP = dO @ V.transpose(-2, -1)
    dS = P * (dP - dP.sum(dim=-1, keepdim=True))
    return dS @ K * scale, dS.transpose(-2, -1) @ Q * scale, dV
