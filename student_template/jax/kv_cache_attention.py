# Your implementation: keep every function's name, arguments and annotations; replace each
# `raise NotImplementedError`. `attnlab check <exercise>` checks one exercise, `attnlab status` all.
"""Attention with a key-value cache, in JAX: how a decoder generates one token after another without
recomputing the past.

At step t a causal decoder needs the keys and values of every earlier token. Instead of projecting the
whole prefix again, it keeps them in a cache: each call attends with the newest tokens' queries to the
cached keys and values plus the new ones, and returns the cache extended by the new keys and values for
the next call. A prompt may be fed all at once (prefill, the cache empty), in chunks, or one token at a
time; every way gives the same outputs as one causal pass over the whole sequence.
"""

import math

import jax
import jax.numpy as jnp
from jaxtyping import Float




def run_kv_cache_attention(
    Q: Float[jax.Array, "... t_new d_k"],
    K: Float[jax.Array, "... t_new d_k"],
    V: Float[jax.Array, "... t_new d_v"],
    k_cache: Float[jax.Array, "... t_past d_k"],
    v_cache: Float[jax.Array, "... t_past d_v"],
) -> tuple[
    Float[jax.Array, "... t_new d_v"],
    Float[jax.Array, "... t_past+t_new d_k"],
    Float[jax.Array, "... t_past+t_new d_v"],
]:
    """Causal attention of the newest tokens over a key-value cache; returns the output and both caches extended.

    New token i is at absolute position t_past + i. It attends to every cached key (positions
    0 .. t_past - 1) and to the new keys j <= i, with scores q·k / √d_k and a softmax over those keys.
    The new caches are jnp.concatenate([k_cache, K], axis=-2) and jnp.concatenate([v_cache, V], axis=-2).
    An empty cache (t_past = 0) makes this plain causal attention.

    Args:
        Q: queries of the new tokens, shape (..., t_new, d_k), t_new >= 1.
        K: keys of the new tokens, shape (..., t_new, d_k).
        V: values of the new tokens, shape (..., t_new, d_v); d_v may differ from d_k.
        k_cache: keys of the t_past earlier tokens, shape (..., t_past, d_k), t_past >= 0.
        v_cache: values of the t_past earlier tokens, shape (..., t_past, d_v).

    Returns:
        (output, new_k_cache, new_v_cache): output (..., t_new, d_v) and the caches (..., t_past + t_new, d_k or d_v),
        all in the dtype of Q.

    中文：带 KV 缓存的因果注意力：第 i 个新词元位于绝对位置 t_past + i，可以关注所有缓存的键以及 j <= i 的新键；
    返回输出以及在序列维上追加了 K、V 的新缓存。
    """
    raise NotImplementedError("exercise kv_cache_attention: implement run_kv_cache_attention")
