"""Translated torch's `k.repeat_interleave(n_rep, dim=1)` by name to jnp.tile, which is torch's .repeat:
it tiles the kv heads (0, 1, 0, 1), so query head h uses kv head h % num_kv_heads. JAX's jnp.repeat is
the one that gives (0, 0, 1, 1)."""

import math

import jax
import jax.numpy as jnp

DIAGNOSIS = "kv_head_modulo"


def run_grouped_query_attention(d_model, num_heads, num_kv_heads, q_proj_weight, k_proj_weight, v_proj_weight,
                                o_proj_weight, in_features):
    *batch, T, _ = in_features.shape
    hd = d_model // num_heads

    def heads(x, n):
        return jnp.swapaxes(x.reshape(*batch, T, n, hd), -3, -2)

    q = heads(in_features @ q_proj_weight.T, num_heads)
    k = heads(in_features @ k_proj_weight.T, num_kv_heads)
    v = heads(in_features @ v_proj_weight.T, num_kv_heads)
    reps = (1,) * len(batch) + (num_heads // num_kv_heads, 1, 1)
    k, v = jnp.tile(k, reps), jnp.tile(v, reps)
    att = q @ jnp.swapaxes(k, -1, -2) / math.sqrt(hd)
    att = jnp.where(jnp.tril(jnp.ones((T, T), dtype=bool)), att, -jnp.inf)
    y = jnp.swapaxes(jax.nn.softmax(att, axis=-1) @ v, -3, -2).reshape(*batch, T, d_model)
    return y @ o_proj_weight.T
