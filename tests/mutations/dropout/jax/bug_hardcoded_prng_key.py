"""Made its own key with jax.random.PRNGKey(0), as JAX tutorials start, instead of using the `generator`
key it was given: every call draws the same mask, whatever key the caller passes."""

import jax
import jax.numpy as jnp

DIAGNOSIS = None


def run_dropout(in_features, p, training=True, generator=None):
    if not training:
        return jnp.array(in_features)
    if p == 1.0:
        return jnp.zeros_like(in_features)
    key = jax.random.PRNGKey(0)
    keep = jax.random.uniform(key, in_features.shape) >= p
    return jnp.where(keep, in_features / (1 - p), 0.0)
