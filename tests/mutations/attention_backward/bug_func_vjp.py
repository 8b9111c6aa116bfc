"""Uses torch.func.vjp on a forward function: functorch's transforms run autograd underneath (through
torch.autograd.grad), which the exercise forbids."""

import math

import torch
from torch.func import vjp

DIAGNOSIS = None


def run_attention_backward(Q, K, V, dO, is_causal=False):
    def forward(q, k, v):
        S = q @ k.mT / math.sqrt(q.shape[-1])
        if is_causal:
            n_q, n_k = S.shape[-2:]
            S = S.masked_fill(torch.ones(n_q, n_k, dtype=torch.bool).tril(n_k - n_q) == 0, float("-inf"))
        return torch.softmax(S, -1) @ v

    _, pullback = vjp(forward, Q, K, V)
    return pullback(dO)
