"""Written for one query at position i: its allowed keys are i − window < j <= i (a mask over jnp.arange(seq)),
and jax.vmap maps it over the queries and their positions (axis -2, batch axes carried by broadcasting). Float32
inside for bfloat16, cast back."""

import math

import jax
import jax.numpy as jnp


def run_sliding_window_attention(Q, K, V, window):
    work = jnp.promote_types(Q.dtype, jnp.float32)
    q, k, v = Q.astype(work), K.astype(work), V.astype(work)
    keys = jnp.arange(k.shape[-2])

    def one_query(q_i, i):
        scores = jnp.einsum("...d,...kd->...k", q_i, k) / math.sqrt(q_i.shape[-1])
        scores = jnp.where((keys <= i) & (keys > i - window), scores, -jnp.inf)
        return jnp.einsum("...k,...kd->...d", jax.nn.softmax(scores, axis=-1), v)

    out = jax.vmap(one_query, in_axes=(-2, 0), out_axes=-2)(q, jnp.arange(q.shape[-2]))
    return out.astype(Q.dtype)
