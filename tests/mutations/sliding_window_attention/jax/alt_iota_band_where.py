"""The band from jax.lax.broadcasted_iota (row − column in [0, window)), given to jax.nn.softmax as `where=` so that
keys outside it get weight exactly 0; jnp.einsum for the products."""

import math

import jax
import jax.numpy as jnp
from jax import lax


def run_sliding_window_attention(Q, K, V, window):
    seq = Q.shape[-2]
    distance = lax.broadcasted_iota(jnp.int32, (seq, seq), 0) - lax.broadcasted_iota(jnp.int32, (seq, seq), 1)
    band = (distance >= 0) & (distance < window)
    scores = jnp.einsum("...qd,...kd->...qk", Q, K) / math.sqrt(Q.shape[-1])
    return jnp.einsum("...qk,...kd->...qd", jax.nn.softmax(scores, axis=-1, where=band), V)
