"""Sets requires_grad on copies by attribute (not requires_grad_()), calls O.backward(dO) and returns the
.grad fields: autograd again, through Tensor.backward, which the exercise forbids."""

import math

import torch

DIAGNOSIS = None


def run_attention_backward(Q, K, V, dO, is_causal=False):
    q, k, v = Q.detach().clone(), K.detach().clone(), V.detach().clone()
    for t in (q, k, v):
        t.requires_grad = True
    with torch.enable_grad():
        S = q @ k.mT / math.sqrt(q.shape[-1])
        if is_causal:
            n_q, n_k = S.shape[-2:]
            S = S.masked_fill(torch.ones(n_q, n_k, dtype=torch.bool).tril(n_k - n_q) == 0, float("-inf"))
        O = torch.softmax(S, -1) @ v
        O.backward(dO)
    return q.grad, k.grad, v.grad
