"""Transposed the keys with K.T, which is right for one (keys, d_k) matrix. On a batched array JAX's .T
reverses ALL axes ((2, 6, 8) becomes (8, 6, 2)), so Q @ K.T fails or multiplies the wrong axes; the last
two axes are swapped with jnp.swapaxes(K, -1, -2) (or K.mT)."""

import math

import jax.numpy as jnp

from reference.jax.softmax import run_softmax

DIAGNOSIS = None  # batched cases raise a shape error; unbatched ones are right


def run_scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ K.T / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = jnp.where(mask.astype(bool), scores, -jnp.inf)
    return run_softmax(scores, dim=-1) @ V
