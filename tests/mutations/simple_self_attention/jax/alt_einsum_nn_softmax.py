"""jnp.einsum with named axes for both products and jax.nn.softmax over the keys (allowed here: only the softmax
exercise itself forbids it). JAX keeps every dtype, bfloat16 included, so nothing needs casting back."""

import jax
import jax.numpy as jnp


def run_simple_self_attention(inputs):
    scores = jnp.einsum("...qd,...kd->...qk", inputs, inputs)
    return jnp.einsum("...qk,...kd->...qd", jax.nn.softmax(scores, axis=-1), inputs)
