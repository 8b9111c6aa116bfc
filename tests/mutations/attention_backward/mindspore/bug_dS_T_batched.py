"""Transposes with Tensor.T, as seed 001's 2-D `keys.T` taught: dV = P.T @ dO and dK = dS.T @ Q. On a
batch Tensor.T reverses EVERY axis ((b, q, k) -> (k, q, b)), so only the single-head case gets through."""

import math

import mindspore
from mindspore import ops

DIAGNOSIS = None


def run_attention_backward(Q, K, V, dO, is_causal=False):
    work = mindspore.float64 if Q.dtype == mindspore.float64 else mindspore.float32
    q, k, v, do = Q.astype(work), K.astype(work), V.astype(work), dO.astype(work)
    scale = 1 / math.sqrt(q.shape[-1])
    s = ops.matmul(q, k.swapaxes(-2, -1)) * scale
    if is_causal:
        n_q, n_k = s.shape[-2:]
        s = ops.masked_fill(s, ~ops.tril(ops.ones((n_q, n_k), mindspore.bool_), diagonal=n_k - n_q), float("-inf"))
    e = ops.exp(s - s.max(axis=-1, keepdims=True))
    P = e / e.sum(axis=-1, keepdims=True)
    dV = ops.matmul(P.T, do)
    dP = ops.matmul(do, v.swapaxes(-2, -1))
    dS = P * (dP - (P * dP).sum(axis=-1, keepdims=True))
    dQ = ops.matmul(dS, k) * scale
    dK = ops.matmul(dS.T, q) * scale
    return dQ.astype(Q.dtype), dK.astype(K.dtype), dV.astype(V.dtype)
