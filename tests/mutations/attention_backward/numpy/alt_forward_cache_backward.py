"""CS231n's layer pattern: a forward function returns the output and a cache (q, k, v, P, scale), and a backward
function takes the upstream gradient and the cache and returns the input gradients; run_attention_backward runs
forward then backward. np.matmul with np.transpose given a full axis permutation, float32 inside (float64 for
float64 inputs)."""

import math

import numpy as np


def _t(x):
    axes = list(range(x.ndim))
    axes[-1], axes[-2] = axes[-2], axes[-1]
    return np.transpose(x, axes)


def attention_forward(q, k, v, is_causal):
    scale = 1.0 / math.sqrt(q.shape[-1])
    s = np.matmul(q, _t(k)) * scale
    if is_causal:
        n_q, n_k = s.shape[-2:]
        future = np.triu(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q + 1)
        s = np.where(future, -np.inf, s)
    e = np.exp(s - np.max(s, axis=-1, keepdims=True))
    P = e / np.sum(e, axis=-1, keepdims=True)
    return np.matmul(P, v), (q, k, v, P, scale)


def attention_backward(dout, cache):
    q, k, v, P, scale = cache
    dv = np.matmul(_t(P), dout)
    dP = np.matmul(dout, _t(v))
    ds = P * (dP - np.sum(P * dP, axis=-1, keepdims=True))
    dq = np.matmul(ds, k) * scale
    dk = np.matmul(_t(ds), q) * scale
    return dq, dk, dv


def run_attention_backward(Q, K, V, dO, is_causal=False):
    work = np.promote_types(Q.dtype, np.float32)
    _, cache = attention_forward(Q.astype(work), K.astype(work), V.astype(work), is_causal)
    dq, dk, dv = attention_backward(dO.astype(work), cache)
    return dq.astype(Q.dtype), dk.astype(K.dtype), dv.astype(V.dtype)
