"""The softmax's backward as its Jacobian, written for one row and jax.vmap'ed over every row: for a row p of P and
its row g of dP, dS_row = (diag(p) − p pᵀ) g. The other gradients are plain matmuls with .mT (the last two axes
swapped). Float32 inside for bfloat16, cast back."""

import math

import jax
import jax.numpy as jnp


def _softmax_row_backward(p, g):
    return (jnp.diag(p) - jnp.outer(p, p)) @ g


def run_attention_backward(Q, K, V, dO, is_causal=False):
    work = jnp.promote_types(Q.dtype, jnp.float32)
    q, k, v, do = (x.astype(work) for x in (Q, K, V, dO))
    n_q, n_k = q.shape[-2], k.shape[-2]
    scale = 1.0 / math.sqrt(q.shape[-1])
    s = q @ k.mT * scale
    if is_causal:
        s = jnp.where(jnp.tri(n_q, n_k, k=n_k - n_q, dtype=bool), s, -jnp.inf)
    P = jnp.exp(s - s.max(axis=-1, keepdims=True))
    P = P / P.sum(axis=-1, keepdims=True)
    dP = do @ v.mT
    rows = jax.vmap(_softmax_row_backward)(P.reshape(-1, n_k), dP.reshape(-1, n_k))
    dS = rows.reshape(P.shape)
    dQ, dK, dV = dS @ k * scale, dS.mT @ q * scale, P.mT @ do
    return dQ.astype(Q.dtype), dK.astype(K.dtype), dV.astype(V.dtype)
