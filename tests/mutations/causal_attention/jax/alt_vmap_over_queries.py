"""Written for one query: query i scores every key, keeps those with index <= i (jnp.arange(seq) <= i) and
averages the values; jax.vmap maps it over the queries and their positions (axis -2 of the queries, every batch
axis carried along by broadcasting inside). Float32 inside for bfloat16, cast back."""

import math

import jax
import jax.numpy as jnp


def run_causal_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features, q_proj_bias=None,
                         k_proj_bias=None, v_proj_bias=None):
    work = jnp.promote_types(in_features.dtype, jnp.float32)
    x = in_features.astype(work)

    def project(w, b):
        out = x @ w.astype(work).T
        return out if b is None else out + b.astype(work)

    q = project(q_proj_weight, q_proj_bias)
    k = project(k_proj_weight, k_proj_bias)
    v = project(v_proj_weight, v_proj_bias)
    seq = x.shape[-2]

    def one_query(q_i, i):  # q_i: (..., d_out)
        scores = jnp.einsum("...d,...kd->...k", q_i, k) / math.sqrt(d_out)
        scores = jnp.where(jnp.arange(seq) <= i, scores, -jnp.inf)
        return jnp.einsum("...k,...kd->...d", jax.nn.softmax(scores, axis=-1), v)

    out = jax.vmap(one_query, in_axes=(-2, 0), out_axes=-2)(q, jnp.arange(seq))
    return out.astype(in_features.dtype)
