"""Decorated the function with @jax.jit without marking p and training static: inside jit they are traced
values, and Python's `if not training:` / `if p == 1.0:` cannot branch on a traced value, so every call
raises (TracerBoolConversionError)."""

import jax
import jax.numpy as jnp

DIAGNOSIS = None


@jax.jit
def run_dropout(in_features, p, training=True, generator=None):
    if not training:
        return in_features * 1
    if p == 1.0:
        return jnp.zeros_like(in_features)
    keep = jax.random.bernoulli(generator, 1 - p, in_features.shape)
    return jnp.where(keep, in_features / (1 - p), 0.0)
