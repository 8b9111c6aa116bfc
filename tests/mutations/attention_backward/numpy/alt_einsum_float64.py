"""Correct: the chain rule written with np.einsum subscripts, in float64 throughout; D from rowsum(P ∘ dP)
rather than rowsum(dO ∘ O) (the same number)."""

import numpy as np


def run_attention_backward(Q, K, V, dO, is_causal=False):
    q, k, v, do = (x.astype(np.float64) for x in (Q, K, V, dO))
    s = np.einsum("...qd,...kd->...qk", q, k) / np.sqrt(q.shape[-1])
    if is_causal:
        n_q, n_k = s.shape[-2:]
        s = np.where(np.tril(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q), s, -np.inf)
    P = np.exp(s - s.max(axis=-1, keepdims=True))
    P /= P.sum(axis=-1, keepdims=True)
    dV = np.einsum("...qk,...qd->...kd", P, do)
    dP = np.einsum("...qd,...kd->...qk", do, v)
    dS = P * (dP - (P * dP).sum(axis=-1, keepdims=True))
    dQ = np.einsum("...qk,...kd->...qd", dS, k) / np.sqrt(q.shape[-1])
    dK = np.einsum("...qk,...qd->...kd", dS, q) / np.sqrt(q.shape[-1])
    return dQ.astype(Q.dtype), dK.astype(K.dtype), dV.astype(V.dtype)
