"""The JAX way (static shapes): jax.vmap over sequences of one function that gathers all max_blocks blocks,
masks the tokens at or after the sequence's length with jnp.where, and groups heads by reshaping."""

import jax
import jax.numpy as jnp

DIAGNOSIS = None


def run_paged_attention(query, key_cache, value_cache, block_tables, context_lens):
    heads, d = query.shape[1], query.shape[2]
    kv_heads = key_cache.shape[2]
    work = jnp.promote_types(query.dtype, jnp.float32)

    def one_sequence(q, table, length):
        keys = key_cache[table].reshape(-1, kv_heads, d).astype(work)  # (tokens, kv, d)
        values = value_cache[table].reshape(-1, kv_heads, d).astype(work)
        q = q.astype(work).reshape(kv_heads, heads // kv_heads, d)
        scores = jnp.einsum("kgd,tkd->kgt", q, keys) / jnp.sqrt(jnp.asarray(d, work))
        scores = jnp.where(jnp.arange(keys.shape[0]) < length, scores, -jnp.inf)
        out = jnp.einsum("kgt,tkd->kgd", jax.nn.softmax(scores, axis=-1), values)
        return out.reshape(heads, d)

    return jax.vmap(one_sequence)(query, block_tables, context_lens).astype(query.dtype)
