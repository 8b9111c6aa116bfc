"""The new tokens decoded one at a time with jax.lax.scan, as generation does: the scan walks the new queries (the
token axis moved to the front) with a step counter i, and query i sees the cache keys whose position is
<= t_past + i; the outputs come back stacked along the front axis and are moved back. Float32 inside for
bfloat16, cast back."""

import math

import jax
import jax.numpy as jnp


def run_kv_cache_attention(Q, K, V, k_cache, v_cache):
    new_k, new_v = jnp.concatenate([k_cache, K], axis=-2), jnp.concatenate([v_cache, V], axis=-2)
    work = jnp.promote_types(Q.dtype, jnp.float32)
    keys, values = new_k.astype(work), new_v.astype(work)
    t_past = k_cache.shape[-2]
    key_pos = jnp.arange(keys.shape[-2])

    def step(i, q):  # q: (..., d), one new token
        scores = jnp.einsum("...d,...kd->...k", q, keys) / math.sqrt(q.shape[-1])
        scores = jnp.where(key_pos <= t_past + i, scores, -jnp.inf)
        return i + 1, jnp.einsum("...k,...kd->...d", jax.nn.softmax(scores, axis=-1), values)

    _, outputs = jax.lax.scan(step, 0, jnp.moveaxis(Q.astype(work), -2, 0))  # (t_new, ..., d)
    return jnp.moveaxis(outputs, 0, -2).astype(Q.dtype), new_k, new_v
