"""Correct, as a NumPy course teaches: np.einsum for every product, the tiles of each query block visited in
a while loop, float64 inside whatever the input (only O is cast back)."""

import numpy as np


def run_flash_attention(Q, K, V, is_causal=False, block_q=16, block_k=16):
    q, k, v = Q.astype(np.float64), K.astype(np.float64), V.astype(np.float64)
    n_q, n_k, d = q.shape[-2], k.shape[-2], q.shape[-1]
    shift = n_k - n_q if is_causal else 0
    out = np.empty((*q.shape[:-1], v.shape[-1]))
    lse = np.empty(q.shape[:-1])
    for i0 in range(0, n_q, block_q):
        qi = q[..., i0:i0 + block_q, :]
        rows = np.arange(i0, i0 + qi.shape[-2]) + shift
        m = np.full(qi.shape[:-1], -np.inf)
        l = np.zeros(qi.shape[:-1])
        acc = np.zeros((*qi.shape[:-1], v.shape[-1]))
        j0 = 0
        while j0 < n_k and (not is_causal or j0 <= rows[-1]):
            s = np.einsum("...qd,...kd->...qk", qi, k[..., j0:j0 + block_k, :]) / np.sqrt(d)
            if is_causal:
                s = np.where(np.arange(j0, j0 + s.shape[-1])[None, :] > rows[:, None], -np.inf, s)
            m_new = np.maximum(m, s.max(axis=-1))
            p = np.exp(s - m_new[..., None])
            l = l * np.exp(m - m_new) + p.sum(axis=-1)
            acc = acc * np.exp(m - m_new)[..., None] + np.einsum("...qk,...kd->...qd", p, v[..., j0:j0 + block_k, :])
            m = m_new
            j0 += block_k
        out[..., i0:i0 + block_q, :] = acc / l[..., None]
        lse[..., i0:i0 + block_q] = m + np.log(l)
    return out.astype(Q.dtype), lse.astype(np.float32)
