"""Masks with jax.nn.softmax's `where=` argument instead of -inf scores (the masked weights come out 0),
and takes D as rowsum(P ∘ dP) with an einsum: correct, in JAX's own idiom."""

import math

import jax
import jax.numpy as jnp


def run_attention_backward(Q, K, V, dO, is_causal=False):
    work = jnp.promote_types(Q.dtype, jnp.float32)
    q, k, v, do = (x.astype(work) for x in (Q, K, V, dO))
    scale = 1 / math.sqrt(q.shape[-1])
    s = jnp.einsum("...qd,...kd->...qk", q, k) * scale
    n_q, n_k = s.shape[-2:]
    allowed = jnp.tril(jnp.ones((n_q, n_k), dtype=bool), k=n_k - n_q) if is_causal else None
    P = jax.nn.softmax(s, axis=-1, where=allowed)
    dV = jnp.einsum("...qk,...qd->...kd", P, do)
    dP = jnp.einsum("...qd,...kd->...qk", do, v)
    dS = P * (dP - jnp.einsum("...qk,...qk->...q", P, dP)[..., None])
    dQ = jnp.einsum("...qk,...kd->...qd", dS, k) * scale
    dK = jnp.einsum("...qk,...qd->...kd", dS, q) * scale
    return dQ.astype(Q.dtype), dK.astype(K.dtype), dV.astype(V.dtype)
