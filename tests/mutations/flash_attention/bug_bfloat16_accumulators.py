"""Keeps scores, m, l and acc in the inputs' dtype: right for float32 and float64, but with bfloat16
inputs the scores carry 8 bits of mantissa and l, a sum of many terms, loses the small ones, so L is off
by about 1e-2 (FlashAttention keeps these in float32 whatever the inputs)."""

import math

import torch

DIAGNOSIS = None


def run_flash_attention(Q, K, V, is_causal=False, block_q=16, block_k=16):
    n_q, n_k = Q.shape[-2], K.shape[-2]
    offset = n_k - n_q if is_causal else 0
    O_tiles, L_tiles = [], []
    for q_start in range(0, n_q, block_q):
        q = Q[..., q_start:q_start + block_q, :]
        stop = min(n_k, q_start + offset + q.shape[-2]) if is_causal else n_k
        m = torch.full((*q.shape[:-1], 1), -torch.inf, dtype=Q.dtype)
        l = torch.zeros_like(m)
        acc = torch.zeros((*q.shape[:-1], V.shape[-1]), dtype=Q.dtype)
        for k_start in range(0, stop, block_k):
            s = q @ K[..., k_start:k_start + block_k, :].transpose(-2, -1) / math.sqrt(q.shape[-1])
            if is_causal:
                i = torch.arange(q.shape[-2])[:, None] + q_start + offset
                j = torch.arange(s.shape[-1])[None, :] + k_start
                s = s.masked_fill(j > i, -torch.inf)
            m_new = torch.maximum(m, s.amax(-1, keepdim=True))
            p = torch.exp(s - m_new)
            l = l * torch.exp(m - m_new) + p.sum(-1, keepdim=True)
            acc = acc * torch.exp(m - m_new) + p @ V[..., k_start:k_start + block_k, :]
            m = m_new
        O_tiles.append(acc / l)
        L_tiles.append((m + l.log()).squeeze(-1))
    return torch.cat(O_tiles, -2), torch.cat(L_tiles, -1).float()
