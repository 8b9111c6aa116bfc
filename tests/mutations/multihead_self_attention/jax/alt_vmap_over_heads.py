"""One causal attention function for a single head, (seq, d_k) -> (seq, d_k), mapped over the heads axis
with jax.vmap (in_axes/out_axes -2 of (..., seq, heads, d_k)) and over any batch axes by broadcasting."""

import math

import jax
import jax.numpy as jnp


def _one_head(q, k, v):
    seq = q.shape[-2]
    scores = q @ jnp.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])  # (..., seq, seq)
    scores = jnp.where(jnp.tril(jnp.ones((seq, seq), dtype=bool)), scores, -jnp.inf)
    return jax.nn.softmax(scores, axis=-1) @ v


def run_multihead_self_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                                 in_features, o_proj_bias=None):
    *batch, seq, _ = in_features.shape
    q, k, v = ((in_features @ w.T).reshape(*batch, seq, num_heads, d_model // num_heads)
               for w in (q_proj_weight, k_proj_weight, v_proj_weight))  # (..., seq, heads, d_k)
    y = jax.vmap(_one_head, in_axes=-2, out_axes=-2)(q, k, v)  # (..., seq, heads, d_k)
    out = y.reshape(*batch, seq, d_model) @ o_proj_weight.T
    return out if o_proj_bias is None else out + o_proj_bias
