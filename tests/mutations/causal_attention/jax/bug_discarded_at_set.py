"""Translated torch's in-place `scores.masked_fill_(future, -inf)` to JAX's functional update
`scores.at[future].set(-jnp.inf)` but kept it as a statement: JAX arrays are immutable, .at[].set()
returns a new array, and the result is thrown away. The scores stay unmasked: every token sees the future."""

import math

import jax
import jax.numpy as jnp

DIAGNOSIS = "no_causal_mask"


def run_causal_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                         q_proj_bias=None, k_proj_bias=None, v_proj_bias=None):
    def project(w, b):
        y = in_features @ w.T
        return y if b is None else y + b

    q, k = project(q_proj_weight, q_proj_bias), project(k_proj_weight, k_proj_bias)
    v = project(v_proj_weight, v_proj_bias)
    scores = q @ jnp.swapaxes(k, -1, -2) / math.sqrt(d_out)
    seq = scores.shape[-1]
    future = jnp.triu(jnp.ones((seq, seq), dtype=bool), k=1)
    scores.at[..., future].set(-jnp.inf)  # the masked copy is discarded
    return jax.nn.softmax(scores, axis=-1) @ v
