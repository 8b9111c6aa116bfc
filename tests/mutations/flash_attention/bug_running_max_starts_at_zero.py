"""Starts each query's running max at 0 (`m = torch.zeros(...)`, as a "neutral" start) instead of -inf.
The softmax does not care which constant is subtracted, so this is right while some score of every row is
above about -87. When all of a row's scores lie below that, exp(score - 0) underflows to 0 in float32, l
stays 0 and O = acc / l is NaN (and L = log 0 = -inf)."""

import math

import torch

DIAGNOSIS = None


def run_flash_attention(Q, K, V, is_causal=False, block_q=16, block_k=16):
    work = torch.promote_types(Q.dtype, torch.float32)
    q, k, v = Q.to(work), K.to(work), V.to(work)
    n_queries, n_keys = q.shape[-2], k.shape[-2]
    offset = n_keys - n_queries if is_causal else 0
    scale = 1.0 / math.sqrt(q.shape[-1])
    outputs, lses = [], []
    for q_start in range(0, n_queries, block_q):
        q_tile = q[..., q_start:q_start + block_q, :]
        rows = q_tile.shape[-2]
        m = torch.zeros((*q_tile.shape[:-1], 1), dtype=work, device=q.device)
        l = torch.zeros_like(m)
        acc = torch.zeros((*q_tile.shape[:-1], v.shape[-1]), dtype=work, device=q.device)
        last_key = q_start + offset + rows if is_causal else n_keys
        for k_start in range(0, min(last_key, n_keys), block_k):
            s = q_tile @ k[..., k_start:k_start + block_k, :].transpose(-2, -1) * scale
            if is_causal:
                row = torch.arange(rows, device=q.device)[:, None] + q_start + offset
                col = torch.arange(s.shape[-1], device=q.device)[None, :] + k_start
                s = s.masked_fill(col > row, float("-inf"))
            m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
            p = torch.exp(s - m_new)
            alpha = torch.exp(m - m_new)
            l = l * alpha + p.sum(dim=-1, keepdim=True)
            acc = acc * alpha + p @ v[..., k_start:k_start + block_k, :]
            m = m_new
        outputs.append(acc / l)
        lses.append((m + torch.log(l)).squeeze(-1))
    return torch.cat(outputs, dim=-2).to(Q.dtype), torch.cat(lses, dim=-1).to(torch.float32)
