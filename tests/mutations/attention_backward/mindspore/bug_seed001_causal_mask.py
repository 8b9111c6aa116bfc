"""Recomputes P with seed 001's causal mask, `ops.triu(ops.ones((n, n)), diagonal=1)` over the queries and keys
as if they were the same positions: query i sees keys j ≤ i (top-left), not j ≤ keys − queries + i. Right
when there are as many queries as keys; with fewer queries they are placed at the start, not the end."""

import math

import mindspore
from mindspore import nn, ops

DIAGNOSIS = "causal_top_left"


def run_attention_backward(Q, K, V, dO, is_causal=False):
    work = mindspore.float64 if Q.dtype == mindspore.float64 else mindspore.float32
    q, k, v, do = Q.astype(work), K.astype(work), V.astype(work), dO.astype(work)
    scale = 1 / math.sqrt(q.shape[-1])
    attn_scores = ops.matmul(q, k.swapaxes(-2, -1)) * scale
    if is_causal:
        mask = ops.triu(ops.ones((q.shape[-2], k.shape[-2])), diagonal=1)
        attn_scores = ops.masked_fill(attn_scores, mask.bool(), float("-inf"))
    P = nn.Softmax(axis=-1)(attn_scores)
    out = ops.matmul(P, v)
    dV = ops.matmul(P.swapaxes(-2, -1), do)
    dS = P * (ops.matmul(do, v.swapaxes(-2, -1)) - (do * out).sum(axis=-1, keepdims=True))
    dQ = ops.matmul(dS, k) * scale
    dK = ops.matmul(dS.swapaxes(-2, -1), q) * scale
    return dQ.astype(Q.dtype), dK.astype(K.dtype), dV.astype(V.dtype)
