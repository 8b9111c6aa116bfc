"""Writes the launcher with torch instead of a kernel (a tiled online softmax in PyTorch, never holding the
scores): the numbers are right, but the exercise is the Triton kernel, so this gets no points."""

import math

import torch

DIAGNOSIS = None


def run_triton_flash_forward(Q, K, V, is_causal=False):
    work = torch.promote_types(Q.dtype, torch.float32)
    q, k, v = Q.to(work), K.to(work), V.to(work)
    n_q, n_k = q.shape[-2], k.shape[-2]
    offset = n_k - n_q if is_causal else 0
    outs, lses = [], []
    for start in range(0, n_q, 16):
        s = q[..., start:start + 16, :] @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if is_causal:
            rows = torch.arange(start, start + s.shape[-2])[:, None] + offset
            s = s.masked_fill(torch.arange(n_k)[None, :] > rows, float("-inf"))
        lses.append(torch.logsumexp(s, dim=-1))
        outs.append(torch.softmax(s, dim=-1) @ v)
    return torch.cat(outs, dim=-2).to(Q.dtype), torch.cat(lses, dim=-1).float()
