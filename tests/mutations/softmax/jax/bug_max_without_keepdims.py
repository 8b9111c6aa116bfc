"""Took the maximum with jnp.max(x, axis=dim) but without keepdims=True, as NumPy code often does for a
vector. The reduced axis is gone, so x - max broadcasts against the wrong axis: on (3, 5) with dim=-1
the shapes (3, 5) and (3,) do not broadcast at all; on a square array they would, silently, by column."""

import jax.numpy as jnp

DIAGNOSIS = None  # it raises (a broadcasting error) on most cases, which is what the student sees


def run_softmax(in_features, dim):
    shifted = in_features - jnp.max(in_features, axis=dim)
    exps = jnp.exp(shifted)
    return exps / jnp.sum(exps, axis=dim, keepdims=True)
