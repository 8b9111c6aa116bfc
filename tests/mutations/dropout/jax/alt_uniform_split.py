"""Splits the key first (the habit JAX code has: never use a key twice) and keeps where a uniform draw is
>= p, computing in float32 for the draw; jit-compiled with p and training static."""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("p", "training"))
def run_dropout(in_features, p, training=True, generator=None):
    if not training:
        return in_features * 1  # a new array
    if p >= 1.0:
        return jnp.zeros_like(in_features)
    _, draw_key = jax.random.split(generator)
    keep = jax.random.uniform(draw_key, in_features.shape, dtype=jnp.float32) >= p
    scaled = in_features / (1.0 - p)
    return jax.lax.select(keep, scaled, jnp.zeros_like(scaled))
