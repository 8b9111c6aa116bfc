"""Splits the sequence into tiles with einops (padding the last tile with keys that get -inf), does the
arithmetic in float64 and casts back; the running statistics live in one tensor per query tile."""

import math

import torch
import torch.nn.functional as F
from einops import rearrange


def run_flash_attention(Q, K, V, is_causal=False, block_q=16, block_k=16):
    q, k, v = Q.double(), K.double(), V.double()
    n_q, n_k = q.shape[-2], k.shape[-2]
    pad_k = -n_k % block_k
    k = F.pad(k, (0, 0, 0, pad_k))
    v = F.pad(v, (0, 0, 0, pad_k))
    k_tiles = rearrange(k, "... (t b) d -> t ... b d", b=block_k)
    v_tiles = rearrange(v, "... (t b) d -> t ... b d", b=block_k)
    key_pos = rearrange(torch.arange(n_k + pad_k, device=Q.device), "(t b) -> t b", b=block_k)
    O_parts, L_parts = [], []
    for qs in range(0, n_q, block_q):
        q_tile = q[..., qs:qs + block_q, :]
        query_pos = torch.arange(qs, qs + q_tile.shape[-2], device=Q.device) + (n_k - n_q)
        m = torch.full(q_tile.shape[:-1], -math.inf, dtype=torch.float64, device=Q.device)
        l = torch.zeros_like(m)
        acc = torch.zeros(*q_tile.shape[:-1], v.shape[-1], dtype=torch.float64, device=Q.device)
        for kt, vt, kp in zip(k_tiles, v_tiles, key_pos):
            allowed = (kp < n_k)[None, :].expand(q_tile.shape[-2], -1)
            if is_causal:
                allowed = allowed & (kp[None, :] <= query_pos[:, None])
            if not allowed.any():
                continue
            s = torch.einsum("...id,...jd->...ij", q_tile, kt) / math.sqrt(Q.shape[-1])
            s = s.masked_fill(~allowed, -math.inf)
            m_new = torch.maximum(m, s.amax(-1))
            p = torch.exp(s - m_new[..., None])
            scale = torch.exp(m - m_new)
            l = l * scale + p.sum(-1)
            acc = acc * scale[..., None] + torch.einsum("...ij,...jd->...id", p, vt)
            m = m_new
        O_parts.append(acc / l[..., None])
        L_parts.append(m + torch.log(l))
    return torch.cat(O_parts, -2).to(Q.dtype), torch.cat(L_parts, -1).float()
