"""dV = P dO: O = P V gives dV = Pᵀ dO, one row per key; without the transpose it only has the right
shape when there are as many queries as keys, and then the wrong values."""

import math

import torch

DIAGNOSIS = "dv_not_transposed"


def run_attention_backward(Q, K, V, dO, is_causal=False):
    d_k = Q.shape[-1]
    S = torch.matmul(Q, K.mT) / math.sqrt(d_k)
    if is_causal:
        n_q, n_k = S.shape[-2:]
        S = S.masked_fill(torch.ones(n_q, n_k, dtype=torch.bool).tril(n_k - n_q) == 0, float("-inf"))
    P = torch.softmax(S, dim=-1)
    O = P @ V
    dV = P @ dO
    dP = dO @ V.mT
    dS = P * (dP - (dO * O).sum(-1, keepdim=True))
    return dS @ K / math.sqrt(d_k), dS.mT @ Q / math.sqrt(d_k), dV
