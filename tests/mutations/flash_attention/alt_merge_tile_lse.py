"""Each key tile gets its own softmax and log-sum-exp, merged as in split-KV decoding: the running L is
logaddexp(L, lse_tile), and O is the two partial outputs weighted by exp(L_old − L) and
exp(lse_tile − L). Never an explicit running max."""

import math

import torch


def run_flash_attention(Q, K, V, is_causal=False, block_q=16, block_k=16):
    dt = torch.float64 if Q.dtype == torch.float64 else torch.float32
    n_q, n_k = Q.shape[-2], K.shape[-2]
    offset = (n_k - n_q) if is_causal else 0
    out_tiles, lse_tiles = [], []
    for qs in range(0, n_q, block_q):
        q = Q[..., qs:qs + block_q, :].to(dt) / math.sqrt(Q.shape[-1])
        nq = q.shape[-2]
        lse = torch.full(q.shape[:-1], -math.inf, dtype=dt, device=Q.device)
        out = torch.zeros(*q.shape[:-1], V.shape[-1], dtype=dt, device=Q.device)
        for ks in range(0, min(n_k, qs + nq + offset) if is_causal else n_k, block_k):
            s = torch.einsum("...qd,...kd->...qk", q, K[..., ks:ks + block_k, :].to(dt))
            if is_causal:
                future = (torch.arange(ks, ks + s.shape[-1], device=Q.device)[None, :]
                          > torch.arange(qs, qs + nq, device=Q.device)[:, None] + offset)
                s = s.masked_fill(future, -math.inf)
            tile_lse = torch.logsumexp(s, dim=-1)
            tile_out = torch.nan_to_num(torch.softmax(s, dim=-1), nan=0.0) @ V[..., ks:ks + block_k, :].to(dt)
            new_lse = torch.logaddexp(lse, tile_lse)
            out = out * torch.exp(lse - new_lse)[..., None] + tile_out * torch.exp(tile_lse - new_lse)[..., None]
            lse = new_lse
        out_tiles.append(out)
        lse_tiles.append(lse)
    return torch.cat(out_tiles, dim=-2).to(Q.dtype), torch.cat(lse_tiles, dim=-1).to(torch.float32)
