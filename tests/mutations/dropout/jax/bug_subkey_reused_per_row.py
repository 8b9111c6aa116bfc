"""Split the key once and then drew every row's mask with the same subkey: JAX keys are not stateful, so
drawing twice from one key gives the same numbers, and every row is dropped in the same columns (the key
must be split once per draw, or one mask drawn for the whole shape)."""

import jax
import jax.numpy as jnp

DIAGNOSIS = None


def run_dropout(in_features, p, training=True, generator=None):
    if not training:
        return jnp.array(in_features)
    if p == 1.0:
        return jnp.zeros_like(in_features)
    _, subkey = jax.random.split(generator)
    rows = in_features.reshape(-1, in_features.shape[-1])
    masks = [jax.random.bernoulli(subkey, 1 - p, row.shape) for row in rows]
    keep = jnp.stack(masks).reshape(in_features.shape)
    return jnp.where(keep, in_features / (1 - p), 0.0)
