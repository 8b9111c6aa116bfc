"""Computes in the inputs' dtype: fine in float32 and float64, but with bfloat16 inputs dP − D subtracts two
nearly equal numbers that carry 8 bits of mantissa each, so dS, dQ and dK lose most of their digits
(FlashAttention's backward computes in float32 whatever the inputs)."""

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
    O = P @ V
    dV = P.mT @ dO
    dP = dO @ V.mT
    dS = P * (dP - (dO * O).sum(-1, keepdim=True))
    return dS @ K / math.sqrt(d_k), dS.mT @ Q / math.sqrt(d_k), dV
