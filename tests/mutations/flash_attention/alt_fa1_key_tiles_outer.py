"""FlashAttention-1's loop order (Algorithm 1 of the first paper): key tiles outside, query tiles inside,
with O kept normalised and m, l stored per query between visits. O is rescaled by l_old·exp(m_old − m_new)
/ l_new at every step instead of dividing once at the end."""

import math

import torch


def run_flash_attention(Q, K, V, is_causal=False, block_q=16, block_k=16):
    work = torch.promote_types(Q.dtype, torch.float32)
    q_all, k_all, v_all = Q.to(work), K.to(work), V.to(work)
    n_q, n_k = Q.shape[-2], K.shape[-2]
    shift = n_k - n_q if is_causal else 0
    O = torch.zeros(*Q.shape[:-1], V.shape[-1], dtype=work, device=Q.device)
    l = torch.zeros(*Q.shape[:-1], 1, dtype=work, device=Q.device)
    m = torch.full_like(l, -math.inf)
    scale = Q.shape[-1] ** -0.5
    for j in range(0, n_k, block_k):
        k, v = k_all[..., j:j + block_k, :], v_all[..., j:j + block_k, :]
        for i in range(0, n_q, block_q):
            rows = slice(i, i + block_q)
            last_query = min(i + block_q, n_q) - 1 + shift
            if is_causal and j > last_query:
                continue  # this key tile is in every query's future
            s = q_all[..., rows, :] @ k.transpose(-1, -2) * scale
            if is_causal:
                qi = torch.arange(i, min(i + block_q, n_q), device=Q.device)[:, None] + shift
                kj = torch.arange(j, j + k.shape[-2], device=Q.device)[None, :]
                s = s.masked_fill(kj > qi, -math.inf)
            m_tile = s.amax(-1, keepdim=True)
            p = torch.exp(s - torch.where(m_tile == -math.inf, 0.0, m_tile))
            l_tile = p.sum(-1, keepdim=True)
            m_new = torch.maximum(m[..., rows, :], m_tile)
            a = torch.exp(m[..., rows, :] - m_new)  # old statistics
            b = torch.exp(m_tile - m_new)  # this tile's
            l_new = a * l[..., rows, :] + b * l_tile
            O[..., rows, :] = (l[..., rows, :] * a * O[..., rows, :] + b * (p @ v)) / l_new
            l[..., rows, :], m[..., rows, :] = l_new, m_new
    return O.to(Q.dtype), (m + torch.log(l)).squeeze(-1).float()
