"""The whole backward jax.jit-compiled with is_causal static (it decides the graph's shape); D = rowsum(dO ∘ O)
from the recomputed output, jnp.matmul and jnp.matrix_transpose for the products: the chain rule by hand, no
autodiff anywhere. Float32 inside for bfloat16, cast back."""

import math
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames="is_causal")
def run_attention_backward(Q, K, V, dO, is_causal=False):
    work = jnp.promote_types(Q.dtype, jnp.float32)
    q, k, v, do = Q.astype(work), K.astype(work), V.astype(work), dO.astype(work)
    scale = 1.0 / math.sqrt(q.shape[-1])
    s = jnp.matmul(q, jnp.matrix_transpose(k)) * scale
    if is_causal:
        n_q, n_k = s.shape[-2:]
        future = jnp.arange(n_k)[None, :] > jnp.arange(n_q)[:, None] + (n_k - n_q)
        s = jnp.where(future, -jnp.inf, s)
    e = jnp.exp(s - jnp.max(s, axis=-1, keepdims=True))
    P = e / jnp.sum(e, axis=-1, keepdims=True)
    O = jnp.matmul(P, v)
    dV = jnp.matmul(jnp.matrix_transpose(P), do)
    dP = jnp.matmul(do, jnp.matrix_transpose(v))
    dS = P * (dP - jnp.sum(do * O, axis=-1, keepdims=True))
    dQ = jnp.matmul(dS, k) * scale
    dK = jnp.matmul(jnp.matrix_transpose(dS), q) * scale
    return dQ.astype(Q.dtype), dK.astype(K.dtype), dV.astype(V.dtype)
