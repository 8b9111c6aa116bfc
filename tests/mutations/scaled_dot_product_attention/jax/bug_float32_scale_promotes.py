"""Wrote the scale as jnp.sqrt(jnp.float32(d_k)): a strongly typed float32 scalar. JAX promotes bfloat16
(and float16) with float32 to float32, so a bfloat16 call returns float32; a Python float (math.sqrt(d_k),
or d_k ** 0.5) is weakly typed and keeps the input's dtype. A float64 call stays float64 but its scale was
rounded to float32, so its values have float32 precision: named as such (float32_precision)."""

import jax.numpy as jnp

from reference.jax.softmax import run_softmax

DIAGNOSIS = None  # the bfloat16 case returns float32
ALSO_DIAGNOSED = ("float32_precision",)  # the float64 case: a float32 constant in float64 arithmetic


def run_scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ jnp.swapaxes(K, -1, -2) / jnp.sqrt(jnp.float32(Q.shape[-1]))
    if mask is not None:
        scores = jnp.where(mask.astype(bool), scores, -jnp.inf)
    return run_softmax(scores, dim=-1) @ V
