"""One kv head and its group of query heads as a function ((group, seq, d) queries against one (seq, d) key and
value), jax.vmap'ed over the kv heads: queries as (..., kv_heads, group, seq, d_head), keys and values as
(..., kv_heads, seq, d_head), in_axes/out_axes -4 and -3. Float32 inside for bfloat16, cast back."""

import math

import jax
import jax.numpy as jnp


def _group(q, k, v):  # q (..., group, seq, d), k and v (..., seq, d)
    seq = q.shape[-2]
    scores = q @ jnp.swapaxes(k, -1, -2)[..., None, :, :] / math.sqrt(q.shape[-1])
    scores = jnp.where(jnp.tril(jnp.ones((seq, seq), dtype=bool)), scores, -jnp.inf)
    return jax.nn.softmax(scores, axis=-1) @ v[..., None, :, :]


def run_grouped_query_attention(d_model, num_heads, num_kv_heads, q_proj_weight, k_proj_weight, v_proj_weight,
                                o_proj_weight, in_features):
    work = jnp.promote_types(in_features.dtype, jnp.float32)
    x = in_features.astype(work)
    *lead, seq, _ = x.shape
    group, d_head = num_heads // num_kv_heads, d_model // num_heads
    q = jnp.moveaxis((x @ q_proj_weight.astype(work).T).reshape(*lead, seq, num_kv_heads, group, d_head), -4, -2)
    k = jnp.moveaxis((x @ k_proj_weight.astype(work).T).reshape(*lead, seq, num_kv_heads, d_head), -3, -2)
    v = jnp.moveaxis((x @ v_proj_weight.astype(work).T).reshape(*lead, seq, num_kv_heads, d_head), -3, -2)
    y = jax.vmap(_group, in_axes=(-4, -3, -3), out_axes=-4)(q, k, v)  # (..., kv_heads, group, seq, d_head)
    y = jnp.moveaxis(y, -2, -4).reshape(*lead, seq, d_model)  # heads in order h = g * group + r
    return (y @ o_proj_weight.astype(work).T).astype(in_features.dtype)
