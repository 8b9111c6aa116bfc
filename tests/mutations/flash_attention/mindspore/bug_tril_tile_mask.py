"""Masks each causal tile the way seed 001 masks a whole score matrix, `ops.tril(ops.ones(...))` in the
tile's own rows and columns, so a tile off the diagonal is masked as if it were on it."""

import math

import mindspore
from mindspore import ops

DIAGNOSIS = "causal_mask_local_indices"


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
        last = min(qs + q_tile.shape[-2] + offset, n_k) if is_causal else n_k
        for ks in range(0, last, block_k):
            s = ops.matmul(q_tile, k[..., ks:ks + block_k, :].swapaxes(-2, -1)) / math.sqrt(q.shape[-1])
            if is_causal:
                allowed = ops.tril(ops.ones((s.shape[-2], s.shape[-1])))
                s = ops.masked_fill(s, allowed == 0, float("-inf"))
            m_new = ops.maximum(m, s.max(axis=-1, keepdims=True))
            p = ops.exp(s - m_new)
            l = l * ops.exp(m - m_new) + p.sum(axis=-1, keepdims=True)
            acc = acc * ops.exp(m - m_new) + ops.matmul(p, v[..., ks:ks + block_k, :])
            m = m_new
        outs.append(acc / l)
        lses.append((m + ops.log(l)).squeeze(-1))
    return ops.cat(outs, axis=-2).astype(Q.dtype), ops.cat(lses, axis=-1).astype(mindspore.float32)
