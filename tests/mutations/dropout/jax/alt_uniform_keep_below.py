"""A keep mask from jax.random.uniform(key, shape) < 1 - p (kept with probability 1 - p), multiplied in as 0./1.
values of the input's dtype and divided by 1 - p; evaluation returns jnp.copy (a new array). Correct: the draw is
uniform on [0, 1), so each entry survives with probability 1 - p, independently, and the same key gives the same
mask."""

import jax
import jax.numpy as jnp


def run_dropout(in_features, p, training=True, generator=None):
    if not training:
        return jnp.copy(in_features)
    if p == 1.0:
        return jnp.zeros_like(in_features)
    keep = jax.random.uniform(generator, in_features.shape) < 1.0 - p
    return in_features * keep.astype(in_features.dtype) / (1.0 - p)
