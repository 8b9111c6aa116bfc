"""Builds the causal mask with torch.tril(ones(queries, keys)), top-left aligned as torch's is_causal:
with fewer queries than keys, the queries (the last positions) lose most of their past."""

import math

import torch

DIAGNOSIS = "causal_top_left"


def run_attention_backward(Q, K, V, dO, is_causal=False):
    d_k = Q.shape[-1]
    S = torch.matmul(Q, K.mT) / math.sqrt(d_k)
    if is_causal:
        S = S.masked_fill(torch.tril(torch.ones(S.shape[-2], S.shape[-1])) == 0, float("-inf"))
    P = torch.softmax(S, dim=-1)
    O = P @ V
    dV = P.mT @ dO
    dP = dO @ V.mT
    dS = P * (dP - (dO * O).sum(-1, keepdim=True))
    return dS @ K / math.sqrt(d_k), dS.mT @ Q / math.sqrt(d_k), dV
