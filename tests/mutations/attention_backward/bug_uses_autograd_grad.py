"""Lets autograd do the exercise: rebuilds the forward on copies that require grad and calls
torch.autograd.grad with dO as the output gradient. Right values, forbidden call."""

import math

import torch

DIAGNOSIS = None


def run_attention_backward(Q, K, V, dO, is_causal=False):
    with torch.enable_grad():
        q, k, v = (t.detach().clone().requires_grad_(True) for t in (Q, K, V))
        S = q @ k.mT / math.sqrt(q.shape[-1])
        if is_causal:
            n_q, n_k = S.shape[-2:]
            S = S.masked_fill(torch.ones(n_q, n_k, dtype=torch.bool).tril(n_k - n_q) == 0, float("-inf"))
        O = torch.softmax(S, -1) @ v
        return torch.autograd.grad(O, (q, k, v), grad_outputs=dO)
