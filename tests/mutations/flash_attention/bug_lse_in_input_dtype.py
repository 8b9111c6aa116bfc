"""Returns L in the inputs' dtype: right values, but the docstring asks for float32 whatever the inputs
(FlashAttention's softmax_lse), so the float64 and bfloat16 cases return the wrong dtype."""

import math

import torch

DIAGNOSIS = None


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
            s = q @ K[..., k_start:k_start + block_k, :].to(work).transpose(-2, -1) / math.sqrt(q.shape[-1])
            if is_causal:
                i = torch.arange(q.shape[-2])[:, None] + q_start + offset
                j = torch.arange(s.shape[-1])[None, :] + k_start
                s = s.masked_fill(j > i, -torch.inf)
            m_new = torch.maximum(m, s.amax(-1, keepdim=True))
            p = torch.exp(s - m_new)
            l = l * torch.exp(m - m_new) + p.sum(-1, keepdim=True)
            acc = acc * torch.exp(m - m_new) + p @ V[..., k_start:k_start + block_k, :].to(work)
            m = m_new
        O_tiles.append(acc / l)
        L_tiles.append((m + l.log()).squeeze(-1))
    return torch.cat(O_tiles, -2).to(Q.dtype), torch.cat(L_tiles, -1).to(Q.dtype)
