"""One causal head as a function of its three weight matrices, jax.vmap'ed over the stacked (num_heads, d_out,
d_in) weights (in_axes=(0, 0, 0, None): the input is shared); the head axis of the result is moved next to d_out
and merged, so head h fills columns h*d_out .. (h+1)*d_out - 1."""

import math

import jax
import jax.numpy as jnp


def _causal_head(w_q, w_k, w_v, x):
    q, k, v = x @ w_q.T, x @ w_k.T, x @ w_v.T
    seq = x.shape[-2]
    scores = q @ jnp.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])
    scores = jnp.where(jnp.tril(jnp.ones((seq, seq), dtype=bool)), scores, -jnp.inf)
    return jax.nn.softmax(scores, axis=-1) @ v  # (..., seq, d_out)


def run_multihead_attention_wrapper(d_in, d_out, num_heads, q_proj_weights, k_proj_weights, v_proj_weights,
                                    in_features):
    heads = jax.vmap(_causal_head, in_axes=(0, 0, 0, None), out_axes=-3)(
        q_proj_weights, k_proj_weights, v_proj_weights, in_features)  # (..., heads, seq, d_out)
    heads = jnp.moveaxis(heads, -3, -2)  # (..., seq, heads, d_out)
    return heads.reshape(*heads.shape[:-2], num_heads * d_out)
