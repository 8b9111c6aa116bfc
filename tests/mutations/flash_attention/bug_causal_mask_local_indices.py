"""Masks every visited causal tile with torch.tril(torch.ones(bq, bk)), i.e. in the tile's own row and
column indices: right for a diagonal tile of square blocks, but it also hides keys from tiles entirely in
the past, which should be seen whole."""

import math

import torch

DIAGNOSIS = "causal_mask_local_indices"


def run_flash_attention(Q, K, V, is_causal=False, block_q=16, block_k=16):
    work = torch.promote_types(Q.dtype, torch.float32)
    n_q, n_k = Q.shape[-2], K.shape[-2]
    offset = n_k - n_q if is_causal else 0
    O_tiles, L_tiles = [], []
    for q_start in range(0, n_q, block_q):
        q = Q[..., q_start:q_start + block_q, :].to(work)
        stop = min(n_k, q_start + offset + q.shape[-2]) if is_causal else n_k
        m = torch.full((*q.shape[:-1], 1), -torch.inf, dtype=work)
        l = torch.zeros_like(m)
        acc = torch.zeros((*q.shape[:-1], V.shape[-1]), dtype=work)
        for k_start in range(0, stop, block_k):
            k = K[..., k_start:k_start + block_k, :].to(work)
            s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
            if is_causal:
                tile_mask = torch.tril(torch.ones(s.shape[-2], s.shape[-1], dtype=torch.bool))
                s = s.masked_fill(~tile_mask, -torch.inf)
            m_new = torch.maximum(m, s.amax(-1, keepdim=True))
            p = torch.exp(s - m_new)
            l = l * torch.exp(m - m_new) + p.sum(-1, keepdim=True)
            acc = acc * torch.exp(m - m_new) + p @ V[..., k_start:k_start + block_k, :].to(work)
            m = m_new
        O_tiles.append(acc / l)
        L_tiles.append((m + l.log()).squeeze(-1))
    return torch.cat(O_tiles, -2).to(Q.dtype), torch.cat(L_tiles, -1).float()
