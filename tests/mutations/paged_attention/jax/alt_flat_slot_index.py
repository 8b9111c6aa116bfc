"""Flat slot indices: for each sequence, the pool slot of each of its tokens (block · block_size + slot), one
jnp.take per sequence over the flattened pool, then a softmax with kv heads repeated for their groups."""

import jax
import jax.numpy as jnp

DIAGNOSIS = None


def run_paged_attention(query, key_cache, value_cache, block_tables, context_lens):
    blocks, block_size, kv_heads, d = key_cache.shape
    heads = query.shape[1]
    work = jnp.promote_types(query.dtype, jnp.float32)
    flat_keys = key_cache.reshape(blocks * block_size, kv_heads, d).astype(work)
    flat_values = value_cache.reshape(blocks * block_size, kv_heads, d).astype(work)
    outputs = []
    for s in range(query.shape[0]):
        t = jnp.arange(int(context_lens[s]))
        slots = block_tables[s][t // block_size] * block_size + t % block_size
        keys = jnp.repeat(jnp.take(flat_keys, slots, axis=0), heads // kv_heads, axis=1)  # (n, heads, d)
        values = jnp.repeat(jnp.take(flat_values, slots, axis=0), heads // kv_heads, axis=1)
        scores = jnp.einsum("hd,thd->ht", query[s].astype(work), keys) * d ** -0.5
        outputs.append(jnp.einsum("ht,thd->hd", jax.nn.softmax(scores, axis=-1), values))
    return jnp.stack(outputs).astype(query.dtype)
