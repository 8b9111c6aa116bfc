"""Stops the causal key loop at the query tile's FIRST position (`range(0, q_start + offset + 1, block_k)`):
right when key tiles are at least as big as query tiles and aligned with them, but a key tile that starts
inside the query tile is never visited, so the tile's later queries miss their last keys."""

import math

import torch

DIAGNOSIS = "causal_tiles_skipped_early"


def run_flash_attention(Q, K, V, is_causal=False, block_q=16, block_k=16):
    work = torch.promote_types(Q.dtype, torch.float32)
    n_q, n_k = Q.shape[-2], K.shape[-2]
    offset = n_k - n_q if is_causal else 0
    O_tiles, L_tiles = [], []
    for q_start in range(0, n_q, block_q):
        q = Q[..., q_start:q_start + block_q, :].to(work)
        stop = min(n_k, q_start + offset + 1) if is_causal else n_k  # should be q_start + offset + len(tile)
        m = torch.full((*q.shape[:-1], 1), -torch.inf, dtype=work)
        l = torch.zeros_like(m)
        acc = torch.zeros((*q.shape[:-1], V.shape[-1]), dtype=work)
        for k_start in range(0, stop, block_k):
            k = K[..., k_start:k_start + block_k, :].to(work)
            s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
            if is_causal:
                i = torch.arange(q.shape[-2])[:, None] + q_start + offset
                j = torch.arange(k.shape[-2])[None, :] + k_start
                s = s.masked_fill(j > i, -torch.inf)
            m_new = torch.maximum(m, s.amax(-1, keepdim=True))
            p = torch.exp(s - m_new)
            l = l * torch.exp(m - m_new) + p.sum(-1, keepdim=True)
            acc = acc * torch.exp(m - m_new) + p @ V[..., k_start:k_start + block_k, :].to(work)
            m = m_new
        O_tiles.append(acc / l)
        L_tiles.append((m + l.log()).squeeze(-1))
    return torch.cat(O_tiles, -2).to(Q.dtype), torch.cat(L_tiles, -1).float()
