"""Written after Flax's nn.Dropout: `if deterministic or rate == 0: return inputs` (the input array itself in
eval mode and at p = 0, as Flax, torch and MindSpore do), else a jax.random.bernoulli keep mask with
probability 1 - p and the survivors divided by 1 - p."""

import jax
import jax.numpy as jnp


def run_dropout(in_features, p, training=True, generator=None):
    deterministic = not training
    if deterministic or p == 0.0:
        return in_features
    if p == 1.0:
        return jnp.zeros_like(in_features)
    keep = jax.random.bernoulli(generator, 1.0 - p, in_features.shape)
    return jnp.where(keep, in_features / (1.0 - p), jnp.zeros_like(in_features)).astype(in_features.dtype)
