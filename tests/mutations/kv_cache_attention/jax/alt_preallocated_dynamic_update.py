"""A preallocated cache, as JAX decoding loops keep one (shapes must be static): zeros of length t_past + t_new,
the old cache and the new keys/values written in with jax.lax.dynamic_update_slice_in_dim; the causal mask over
the cache from jax.lax.broadcasted_iota (key position <= t_past + query index)."""

import math

import jax
import jax.numpy as jnp
from jax import lax


def _extend(cache, new):
    t_past, t_new = cache.shape[-2], new.shape[-2]
    full = jnp.zeros((*new.shape[:-2], t_past + t_new, new.shape[-1]), dtype=new.dtype)
    full = lax.dynamic_update_slice_in_dim(full, cache.astype(new.dtype), 0, axis=full.ndim - 2)
    return lax.dynamic_update_slice_in_dim(full, new, t_past, axis=full.ndim - 2)


def run_kv_cache_attention(Q, K, V, k_cache, v_cache):
    keys, values = _extend(k_cache, K), _extend(v_cache, V)
    t_past, t_new, t_total = k_cache.shape[-2], Q.shape[-2], keys.shape[-2]
    query_pos = lax.broadcasted_iota(jnp.int32, (t_new, t_total), 0) + t_past
    key_pos = lax.broadcasted_iota(jnp.int32, (t_new, t_total), 1)
    scores = Q @ jnp.swapaxes(keys, -1, -2) / math.sqrt(Q.shape[-1])
    weights = jax.nn.softmax(jnp.where(key_pos <= query_pos, scores, -jnp.inf), axis=-1)
    return weights @ values, keys, values
