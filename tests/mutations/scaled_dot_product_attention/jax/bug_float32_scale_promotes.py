"""Wrote the scale as jnp.sqrt(jnp.float32(d_k)): a strongly typed float32 scalar. JAX promotes bfloat16
(and float16) with float32 to float32, so a bfloat16 call returns float32; a Python float (math.sqrt(d_k),
or d_k ** 0.5) is weakly typed and keeps the input's dtype."""

import jax.numpy as jnp

from reference.jax.softmax import run_softmax

DIAGNOSIS = None  # the values are right; the bfloat16 case returns float32


def run_scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ jnp.swapaxes(K, -1, -2) / jnp.sqrt(jnp.float32(Q.shape[-1]))
    if mask is not None:
        scores = jnp.where(mask.astype(bool), scores, -jnp.inf)
    return run_softmax(scores, dim=-1) @ V
