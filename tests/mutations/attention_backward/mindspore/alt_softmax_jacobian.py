"""The softmax's Jacobian written out, as a first derivation does it: per row J = diag(p) − p pᵀ, built for
every query as `ops.diag_embed(P) − P[..., :, None] * P[..., None, :]` (..., queries, keys, keys), and
dS = J dP by `ops.matmul` with dP as a column; the causal mask from `ops.tril(..., diagonal=keys − queries)`
(bottom-right), float32 inside (float64 for float64 inputs). Correct: J is symmetric, so J dP is the
vector-Jacobian product, and row by row it equals P ∘ (dP − rowsum(P ∘ dP)); masked keys have p = 0, so
their rows and columns of J are 0."""

import math

import mindspore
from mindspore import ops


def run_attention_backward(Q, K, V, dO, is_causal=False):
    work = mindspore.float64 if Q.dtype == mindspore.float64 else mindspore.float32
    q, k, v, do = Q.astype(work), K.astype(work), V.astype(work), dO.astype(work)
    scale = 1.0 / math.sqrt(q.shape[-1])
    S = ops.matmul(q, k.swapaxes(-2, -1)) * scale  # (..., queries, keys)
    if is_causal:
        n_q, n_k = S.shape[-2:]
        allowed = ops.tril(ops.ones((n_q, n_k), mindspore.bool_), diagonal=n_k - n_q)
        S = ops.masked_fill(S, ops.logical_not(allowed), float("-inf"))
    E = ops.exp(S - S.max(axis=-1, keepdims=True))
    P = E / E.sum(axis=-1, keepdims=True)
    dV = ops.matmul(P.swapaxes(-2, -1), do)
    dP = ops.matmul(do, v.swapaxes(-2, -1))  # (..., queries, keys)
    J = ops.diag_embed(P) - P.expand_dims(-1) * P.expand_dims(-2)  # (..., queries, keys, keys)
    dS = ops.matmul(J, dP.expand_dims(-1)).squeeze(-1)  # (..., queries, keys)
    dQ = ops.matmul(dS, k) * scale
    dK = ops.matmul(dS.swapaxes(-2, -1), q) * scale
    return dQ.astype(Q.dtype), dK.astype(K.dtype), dV.astype(V.dtype)
