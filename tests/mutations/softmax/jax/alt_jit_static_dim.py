"""The softmax compiled with jax.jit, `dim` marked static (an axis must be known when tracing), and the
maximum held out of differentiation with jax.lax.stop_gradient (as jax.nn.softmax does: the shift does
not change the result, so its gradient is not needed)."""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames="dim")
def run_softmax(in_features, dim):
    shift = jax.lax.stop_gradient(in_features.max(axis=dim, keepdims=True))
    unnormalised = jnp.exp(in_features - shift)
    return unnormalised / unnormalised.sum(axis=dim, keepdims=True)
