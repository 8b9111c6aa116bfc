"""All heads in one jnp.einsum per product: "...si,hoi->...hso" projects with every head's weights at once, the
scores and weighted sums keep the head axis, and "...hqk,...hkd->...qhd" lays the heads side by side before the
final reshape. The causal mask is an additive 0/-inf bias."""

import math

import jax
import jax.numpy as jnp


def run_multihead_attention_wrapper(d_in, d_out, num_heads, q_proj_weights, k_proj_weights, v_proj_weights,
                                    in_features):
    q = jnp.einsum("...si,hoi->...hso", in_features, q_proj_weights)
    k = jnp.einsum("...si,hoi->...hso", in_features, k_proj_weights)
    v = jnp.einsum("...si,hoi->...hso", in_features, v_proj_weights)
    seq = in_features.shape[-2]
    bias = jnp.where(jnp.tril(jnp.ones((seq, seq), dtype=bool)), 0.0, -jnp.inf).astype(q.dtype)
    scores = jnp.einsum("...hqd,...hkd->...hqk", q, k) / math.sqrt(d_out) + bias
    out = jnp.einsum("...hqk,...hkd->...qhd", jax.nn.softmax(scores, axis=-1), v)
    return out.reshape(*out.shape[:-2], num_heads * d_out)
