"""Writes the backward with torch instead of kernels (FA2's recomputation from L, one tile of 16 queries at a
time, never holding all the scores): the numbers are right, but the exercise is the Triton kernels, so this
gets no points."""

import math

import torch

DIAGNOSIS = None


def run_triton_flash_backward(Q, K, V, O, L, dO, is_causal=False):
    work = torch.promote_types(Q.dtype, torch.float32)
    q, k, v, o, lse, do = (t.to(work) for t in (Q, K, V, O, L, dO))
    n_q, n_k = q.shape[-2], k.shape[-2]
    offset = n_k - n_q if is_causal else 0
    scale = 1 / math.sqrt(q.shape[-1])
    delta = (do * o).sum(-1)
    dq, dk, dv = torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v)
    for start in range(0, n_q, 16):
        rows = slice(start, start + 16)
        p = torch.exp(q[..., rows, :] @ k.transpose(-2, -1) * scale - lse[..., rows, None])
        if is_causal:
            p = p.masked_fill(torch.arange(n_k)[None, :] > torch.arange(start, start + p.shape[-2])[:, None] + offset, 0)
        dv += p.transpose(-2, -1) @ do[..., rows, :]
        ds = p * (do[..., rows, :] @ v.transpose(-2, -1) - delta[..., rows, None])
        dq[..., rows, :] = ds @ k * scale
        dk += ds.transpose(-2, -1) @ q[..., rows, :] * scale
    return dq.to(Q.dtype), dk.to(K.dtype), dv.to(V.dtype)
