"""Ran one causal attention per head with jax.vmap, but gave in_axes the axis the heads had before they were
moved: after reshaping to (..., seq, heads, d_k), axis -3 is the SEQUENCE. vmap then maps over positions,
and each call attends across the heads of one token (a heads x heads "causal" mask), never across tokens."""

import math

import jax
import jax.numpy as jnp

DIAGNOSIS = "heads_not_transposed"


def _causal_attention(q, k, v):
    n = q.shape[-2]
    scores = q @ jnp.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])
    scores = jnp.where(jnp.tril(jnp.ones((n, n), dtype=bool)), scores, -jnp.inf)
    return jax.nn.softmax(scores, axis=-1) @ v


def run_multihead_self_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                                 in_features, o_proj_bias=None):
    *batch, seq, _ = in_features.shape
    d_k = d_model // num_heads
    q, k, v = ((in_features @ w.T).reshape(*batch, seq, num_heads, d_k)
               for w in (q_proj_weight, k_proj_weight, v_proj_weight))  # (..., seq, heads, d_k)
    per_head = jax.vmap(_causal_attention, in_axes=-3, out_axes=-3)  # meant: the heads axis
    y = per_head(q, k, v).reshape(*batch, seq, d_model)
    out = y @ o_proj_weight.T
    return out if o_proj_bias is None else out + o_proj_bias
