"""No repeated keys: the queries are reshaped to (..., seq, kv_heads, group, d_head), so query head h sits in kv
group h // group, and jnp.einsum broadcasts each kv head over its group ("...qgrd,...kgd->...grqk"); the causal
mask is given to jax.nn.softmax as `where=`."""

import math

import jax
import jax.numpy as jnp


def run_grouped_query_attention(d_model, num_heads, num_kv_heads, q_proj_weight, k_proj_weight, v_proj_weight,
                                o_proj_weight, in_features):
    *lead, seq, _ = in_features.shape
    group, d_head = num_heads // num_kv_heads, d_model // num_heads
    q = (in_features @ q_proj_weight.T).reshape(*lead, seq, num_kv_heads, group, d_head)
    k = (in_features @ k_proj_weight.T).reshape(*lead, seq, num_kv_heads, d_head)
    v = (in_features @ v_proj_weight.T).reshape(*lead, seq, num_kv_heads, d_head)
    scores = jnp.einsum("...qgrd,...kgd->...grqk", q, k) / math.sqrt(d_head)
    weights = jax.nn.softmax(scores, axis=-1, where=jnp.tri(seq, dtype=bool))
    context = jnp.einsum("...grqk,...kgd->...qgrd", weights, v).reshape(*lead, seq, d_model)
    return context @ o_proj_weight.T
