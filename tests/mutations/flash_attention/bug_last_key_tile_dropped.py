"""Counts key tiles as n_keys // block_k: when block_k does not divide the number of keys, the last,
smaller tile is never visited and its keys get no weight (queries are tiled with a ceiling division)."""

import math

import torch

DIAGNOSIS = "last_key_tile_dropped"


def run_flash_attention(Q, K, V, is_causal=False, block_q=16, block_k=16):
    work = torch.promote_types(Q.dtype, torch.float32)
    n_q, n_k = Q.shape[-2], K.shape[-2]
    offset = n_k - n_q if is_causal else 0
    O = torch.empty(*Q.shape[:-1], V.shape[-1], dtype=work)
    L = torch.empty(Q.shape[:-1], dtype=torch.float32)
    for t in range(math.ceil(n_q / block_q)):
        rows = slice(t * block_q, (t + 1) * block_q)
        q = Q[..., rows, :].to(work)
        m = torch.full((*q.shape[:-1], 1), -torch.inf, dtype=work)
        l = torch.zeros_like(m)
        acc = torch.zeros((*q.shape[:-1], V.shape[-1]), dtype=work)
        for u in range(n_k // block_k):
            cols = slice(u * block_k, (u + 1) * block_k)
            s = q @ K[..., cols, :].to(work).transpose(-2, -1) / math.sqrt(q.shape[-1])
            if is_causal:
                i = torch.arange(q.shape[-2])[:, None] + t * block_q + offset
                j = torch.arange(s.shape[-1])[None, :] + u * block_k
                s = s.masked_fill(j > i, -torch.inf)
            m_new = torch.maximum(m, s.amax(-1, keepdim=True))
            p = torch.exp(s - m_new)
            l = l * torch.exp(m - m_new) + p.sum(-1, keepdim=True)
            acc = acc * torch.exp(m - m_new) + p @ V[..., cols, :].to(work)
            m = m_new
        O[..., rows, :] = acc / l
        L[..., rows] = (m + l.log()).squeeze(-1)
    return O.to(Q.dtype), L
