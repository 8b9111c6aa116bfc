"""A pure function of a params pytree, as JAX courses (and Flax) write layers: {"query": {"kernel", "bias"}, ...}
with kernels in (d_in, d_out) layout (the transpose of the nn.Linear weights given), `x @ kernel + bias`, and
missing biases as zeros. Computed in at least float32 and cast back to the input's dtype."""

import math

import jax
import jax.numpy as jnp


def init_params(weights, biases):
    return {name: {"kernel": w.T, "bias": jnp.zeros(w.shape[0], w.dtype) if b is None else b}
            for name, w, b in zip(("query", "key", "value"), weights, biases)}


def apply(params, x):
    dense = {name: x @ p["kernel"] + p["bias"] for name, p in params.items()}
    d_out = params["query"]["kernel"].shape[1]
    scores = dense["query"] @ jnp.swapaxes(dense["key"], -1, -2) / math.sqrt(d_out)
    return jax.nn.softmax(scores, axis=-1) @ dense["value"]


def run_self_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features, q_proj_bias=None,
                       k_proj_bias=None, v_proj_bias=None):
    work = jnp.promote_types(in_features.dtype, jnp.float32)
    weights = [w.astype(work) for w in (q_proj_weight, k_proj_weight, v_proj_weight)]
    biases = [None if b is None else b.astype(work) for b in (q_proj_bias, k_proj_bias, v_proj_bias)]
    return apply(init_params(weights, biases), in_features.astype(work)).astype(in_features.dtype)
