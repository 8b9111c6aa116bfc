"""The FlashAttention-2 kernels' trick in NumPy: the scores are scaled by log2(e)/√d_k so that np.exp2 replaces
np.exp (2^(x·log2 e) = e^x), the running max and sum live in base 2, and L is converted back to natural log at
the end (L = (m + log2 l) · ln 2). Query tiles outer, key tiles inner, float32 inside."""

import math

import numpy as np


def run_flash_attention(Q, K, V, is_causal=False, block_q=16, block_k=16):
    work = np.promote_types(Q.dtype, np.float32)
    q, k, v = Q.astype(work), K.astype(work), V.astype(work)
    n_q, n_k = q.shape[-2], k.shape[-2]
    shift = n_k - n_q if is_causal else 0
    scale_log2 = math.log2(math.e) / math.sqrt(q.shape[-1])
    out_tiles, lse_tiles = [], []
    for i in range(0, n_q, block_q):
        q_i = q[..., i:i + block_q, :]
        rows = np.arange(i, i + q_i.shape[-2])[:, None] + shift
        m = np.full(q_i.shape[:-1] + (1,), -np.inf, dtype=work)
        l = np.zeros_like(m)
        acc = np.zeros(q_i.shape[:-1] + v.shape[-1:], dtype=work)
        stop = min(n_k, i + q_i.shape[-2] + shift) if is_causal else n_k
        for j in range(0, stop, block_k):
            s = (q_i @ np.swapaxes(k[..., j:j + block_k, :], -1, -2) * scale_log2).astype(work)
            if is_causal:
                s = np.where(np.arange(j, j + s.shape[-1])[None, :] > rows, -np.inf, s)
            m_new = np.maximum(m, s.max(axis=-1, keepdims=True))
            p = np.exp2(s - m_new)
            correction = np.exp2(m - m_new)
            l = l * correction + p.sum(axis=-1, keepdims=True)
            acc = acc * correction + p @ v[..., j:j + block_k, :]
            m = m_new
        out_tiles.append(acc / l)
        lse_tiles.append(((m + np.log2(l)) * math.log(2.0))[..., 0])
    O = np.concatenate(out_tiles, axis=-2)
    return O.astype(Q.dtype), np.concatenate(lse_tiles, axis=-1).astype(np.float32)
