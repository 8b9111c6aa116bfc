"""Scores and output with jnp.einsum (named axes instead of transposes), and an additive mask: 0 where a key
is allowed, -inf where not, added to the scores."""

import math

import jax
import jax.numpy as jnp


def run_scaled_dot_product_attention(Q, K, V, mask=None):
    scores = jnp.einsum("...qd,...kd->...qk", Q, K) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores + jnp.where(mask.astype(bool), 0.0, -jnp.inf).astype(scores.dtype)
    weights = jax.nn.softmax(scores, axis=-1)
    return jnp.einsum("...qk,...kd->...qd", weights, V)
