"""FlashAttention-1's loop order: the outer loop walks the key/value tiles, the inner loop the query tiles, and
O, l and m live in full-length arrays that every key tile updates (O is kept normalised: rescaled by
l_old·e^{m_old − m_new} / l_new). Causal: a query tile whose last position is before the key tile is skipped.
Float32 inside (float64 for float64 inputs); the largest score array is one tile."""

import math

import numpy as np


def run_flash_attention(Q, K, V, is_causal=False, block_q=16, block_k=16):
    work = np.promote_types(Q.dtype, np.float32)
    q, k, v = Q.astype(work), K.astype(work), V.astype(work)
    n_q, n_k = q.shape[-2], k.shape[-2]
    shift = n_k - n_q if is_causal else 0
    scale = 1.0 / math.sqrt(q.shape[-1])
    O = np.zeros(q.shape[:-1] + v.shape[-1:], dtype=work)
    l = np.zeros(q.shape[:-1] + (1,), dtype=work)
    m = np.full(q.shape[:-1] + (1,), -np.inf, dtype=work)
    for j in range(0, n_k, block_k):
        k_j, v_j = k[..., j:j + block_k, :], v[..., j:j + block_k, :]
        for i in range(0, n_q, block_q):
            rows = np.arange(i, min(i + block_q, n_q)) + shift  # positions of this query tile
            if is_causal and j > rows[-1]:
                continue  # every key of the tile is in these queries' future
            s = (q[..., i:i + block_q, :] @ np.swapaxes(k_j, -1, -2) * scale).astype(work)
            if is_causal:
                s = np.where(np.arange(j, j + s.shape[-1]) > rows[:, None], -np.inf, s)
            m_old, l_old = m[..., i:i + block_q, :], l[..., i:i + block_q, :]
            m_new = np.maximum(m_old, s.max(axis=-1, keepdims=True))
            p = np.exp(s - m_new)
            l_new = l_old * np.exp(m_old - m_new) + p.sum(axis=-1, keepdims=True)
            O[..., i:i + block_q, :] = (O[..., i:i + block_q, :] * (l_old * np.exp(m_old - m_new)) + p @ v_j) / l_new
            m[..., i:i + block_q, :], l[..., i:i + block_q, :] = m_new, l_new
    return O.astype(Q.dtype), (m + np.log(l))[..., 0].astype(np.float32)
