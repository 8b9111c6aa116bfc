"""Gets the gradients from autograd: recomputes attention with torch on tensors that require grad and calls
torch.autograd.grad. Autograd is forbidden (as in attention_backward), and no kernel computes anything."""

import math

import torch

DIAGNOSIS = None


def run_triton_flash_backward(Q, K, V, O, L, dO, is_causal=False):
    q, k, v = (t.detach().float().requires_grad_(True) for t in (Q, K, V))
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if is_causal:
        n_q, n_k = s.shape[-2:]
        s = s.masked_fill(torch.ones(n_q, n_k, dtype=torch.bool).tril(n_k - n_q).logical_not(), float("-inf"))
    out = torch.softmax(s, dim=-1) @ v
    dq, dk, dv = torch.autograd.grad(out, (q, k, v), dO.float())
    return dq.to(Q.dtype), dk.to(K.dtype), dv.to(V.dtype)
