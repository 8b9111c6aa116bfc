"""Writes dV, dQ and dK by hand but calls ATen's softmax backward kernel for dS, the heart of the exercise
(torch.ops.aten._softmax_backward_data), which is forbidden."""

import math

import torch

DIAGNOSIS = None


def run_attention_backward(Q, K, V, dO, is_causal=False):
    d_k = Q.shape[-1]
    S = Q @ K.mT / math.sqrt(d_k)
    if is_causal:
        n_q, n_k = S.shape[-2:]
        S = S.masked_fill(torch.ones(n_q, n_k, dtype=torch.bool).tril(n_k - n_q) == 0, float("-inf"))
    P = torch.softmax(S, -1)
    dV = P.mT @ dO
    dP = dO @ V.mT
    dS = torch.ops.aten._softmax_backward_data(dP, P, -1, P.dtype)
    return dS @ K / math.sqrt(d_k), dS.mT @ Q / math.sqrt(d_k), dV
