"""Seed 001 writes `ops.matmul(queries, keys.T)` on 2-D inputs, and the tile loop keeps the habit:
`k_tile.T`. On a batch of tiles Tensor.T reverses EVERY axis ((b, bk, d) -> (d, bk, b)), not just the
last two, so only the single-head case works."""

import math

import mindspore
from mindspore import ops

DIAGNOSIS = None


def run_flash_attention(Q, K, V, is_causal=False, block_q=16, block_k=16):
    work = mindspore.float64 if Q.dtype == mindspore.float64 else mindspore.float32
    q, k, v = Q.astype(work), K.astype(work), V.astype(work)
    n_q, n_k = q.shape[-2], k.shape[-2]
    offset = n_k - n_q if is_causal else 0
    outs, lses = [], []
    for qs in range(0, n_q, block_q):
        q_tile = q[..., qs:qs + block_q, :]
        m = ops.full((*q_tile.shape[:-1], 1), float("-inf"), dtype=work)
        l = ops.zeros_like(m)
        acc = ops.zeros((*q_tile.shape[:-1], v.shape[-1]), work)
        rows = ops.arange(q_tile.shape[-2])[:, None] + qs + offset
        for ks in range(0, n_k, block_k):
            s = ops.matmul(q_tile, k[..., ks:ks + block_k, :].T) / math.sqrt(q.shape[-1])
            if is_causal:
                s = ops.masked_fill(s, ops.arange(s.shape[-1])[None, :] + ks > rows, float("-inf"))
            m_new = ops.maximum(m, s.max(axis=-1, keepdims=True))
            p = ops.exp(s - m_new)
            l = l * ops.exp(m - m_new) + p.sum(axis=-1, keepdims=True)
            acc = acc * ops.exp(m - m_new) + ops.matmul(p, v[..., ks:ks + block_k, :])
            m = m_new
        outs.append(acc / l)
        lses.append((m + ops.log(l)).squeeze(-1))
    return ops.cat(outs, axis=-2).astype(Q.dtype), ops.cat(lses, axis=-1).astype(mindspore.float32)
