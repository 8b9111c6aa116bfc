"""Writes Pᵀ as `P.T`, as on the blackboard: on a batch of matrices a jax.Array's .T reverses EVERY axis
(NumPy's rule), so Pᵀ dO multiplies (keys, queries, batch) by (batch, queries, d_v) and fails; it is
correct only for a single unbatched head."""

import math

import jax
import jax.numpy as jnp

DIAGNOSIS = None


def run_attention_backward(Q, K, V, dO, is_causal=False):
    work = jnp.promote_types(Q.dtype, jnp.float32)
    q, k, v, do = (x.astype(work) for x in (Q, K, V, dO))
    s = q @ jnp.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])
    if is_causal:
        n_q, n_k = s.shape[-2:]
        s = jnp.where(jnp.tril(jnp.ones((n_q, n_k), dtype=bool), k=n_k - n_q), s, -jnp.inf)
    P = jax.nn.softmax(s, axis=-1)
    dV = P.T @ do
    dS = P * (do @ jnp.swapaxes(v, -1, -2) - (do * (P @ v)).sum(-1, keepdims=True))
    dQ = dS @ k / math.sqrt(q.shape[-1])
    dK = jnp.swapaxes(dS, -1, -2) @ q / math.sqrt(q.shape[-1])
    return dQ.astype(Q.dtype), dK.astype(K.dtype), dV.astype(V.dtype)
