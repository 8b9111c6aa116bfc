"""FlashAttention-2's backward in tiles: a first tiled pass gives O and L = logsumexp of each query's
scores, then key tiles outside and query tiles inside recompute P = exp(S − L) one tile at a time,
accumulating dV and dK per key tile and dQ in place. Never the whole P."""

import math

import torch

BQ, BK = 3, 4  # tile sizes that divide nothing in the cases


def _tile_scores(q, k, qs, ks, scale, offset, causal):
    s = q[..., qs:qs + BQ, :] @ k[..., ks:ks + BK, :].transpose(-2, -1) * scale
    if causal:
        rows = torch.arange(qs, qs + s.shape[-2], device=s.device)[:, None] + offset
        cols = torch.arange(ks, ks + s.shape[-1], device=s.device)[None, :]
        s = s.masked_fill(cols > rows, -math.inf)
    return s


def _forward_stats(q, k, v, scale, offset, causal):
    """O and L, tile by tile with an online softmax."""
    n_q, n_k = q.shape[-2], k.shape[-2]
    O = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype, device=q.device)
    L = torch.zeros(q.shape[:-1], dtype=q.dtype, device=q.device)
    for qs in range(0, n_q, BQ):
        m = l = acc = None
        for ks in range(0, n_k, BK):
            s = _tile_scores(q, k, qs, ks, scale, offset, causal)
            m_new = s.amax(-1, keepdim=True) if m is None else torch.maximum(m, s.amax(-1, keepdim=True))
            p = torch.exp(s - m_new)
            p_v = p @ v[..., ks:ks + BK, :]
            if m is None:
                l, acc = p.sum(-1, keepdim=True), p_v
            else:
                alpha = torch.exp(m - m_new)
                l, acc = alpha * l + p.sum(-1, keepdim=True), alpha * acc + p_v
            m = m_new
        O[..., qs:qs + BQ, :] = acc / l
        L[..., qs:qs + BQ] = (m + torch.log(l)).squeeze(-1)
    return O, L


def run_attention_backward(Q, K, V, dO, is_causal=False):
    work = torch.promote_types(Q.dtype, torch.float32)
    q, k, v, do = Q.to(work), K.to(work), V.to(work), dO.to(work)
    scale = 1 / math.sqrt(q.shape[-1])
    offset = k.shape[-2] - q.shape[-2]
    O, L = _forward_stats(q, k, v, scale, offset, is_causal)
    D = (do * O).sum(-1)  # (..., queries)
    dQ, dK, dV = torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v)
    for ks in range(0, k.shape[-2], BK):
        for qs in range(0, q.shape[-2], BQ):
            P = torch.exp(_tile_scores(q, k, qs, ks, scale, offset, is_causal) - L[..., qs:qs + BQ, None])
            do_t = do[..., qs:qs + BQ, :]
            dV[..., ks:ks + BK, :] += P.transpose(-2, -1) @ do_t
            dS = P * (do_t @ v[..., ks:ks + BK, :].transpose(-2, -1) - D[..., qs:qs + BQ, None])
            dQ[..., qs:qs + BQ, :] += dS @ k[..., ks:ks + BK, :] * scale
            dK[..., ks:ks + BK, :] += dS.transpose(-2, -1) @ q[..., qs:qs + BQ, :] * scale
    return dQ.to(Q.dtype), dK.to(K.dtype), dV.to(V.dtype)
