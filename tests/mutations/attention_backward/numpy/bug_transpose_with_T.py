"""`.T` for the transpose, as in a 2-D NumPy lesson: on a batched (..., queries, keys) array `.T` reverses
every axis, so Pᵀ dO and dSᵀ Q multiply the wrong axes: single-head cases pass, batched ones fail (on
shapes, or with values from the wrong batch and head when the sizes happen to line up)."""

import math

import numpy as np

DIAGNOSIS = None


def run_attention_backward(Q, K, V, dO, is_causal=False):
    work = np.promote_types(Q.dtype, np.float32)
    q, k, v, do = Q.astype(work), K.astype(work), V.astype(work), dO.astype(work)
    scale = 1.0 / math.sqrt(q.shape[-1])
    s = (q @ np.swapaxes(k, -2, -1) * scale).astype(work)
    if is_causal:
        n_q, n_k = s.shape[-2:]
        s = np.where(np.tril(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q), s, -np.inf)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    P = e / e.sum(axis=-1, keepdims=True)
    dV = P.T @ do
    dP = do @ np.swapaxes(v, -2, -1)
    dS = P * (dP - (do * (P @ v)).sum(axis=-1, keepdims=True))
    dQ = dS @ k * scale
    dK = dS.T @ q * scale
    return dQ.astype(Q.dtype), dK.astype(K.dtype), dV.astype(V.dtype)
