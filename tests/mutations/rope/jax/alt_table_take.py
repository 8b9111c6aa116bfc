"""Precomputed float32 cos/sin tables of max_seq_len rows (the RotaryEmbedding module's cache) looked up with
jnp.take(table, positions, axis=0); the pairs are split with reshape(..., d_k/2, 2) and re-joined with jnp.stack.
Float32 tables for every input dtype, which the spec's tolerance allows for (a common cos/sin table)."""

import jax.numpy as jnp


def rope_tables(d_k, theta, max_seq_len):
    inv_freq = theta ** (-jnp.arange(0, d_k, 2, dtype=jnp.float32) / d_k)
    angles = jnp.arange(max_seq_len, dtype=jnp.float32)[:, None] * inv_freq[None, :]
    return jnp.cos(angles), jnp.sin(angles)  # (max_seq_len, d_k/2), float32


def run_rope(d_k, theta, max_seq_len, in_query_or_key, token_positions):
    cos_table, sin_table = rope_tables(d_k, theta, max_seq_len)
    cos = jnp.take(cos_table, token_positions, axis=0).astype(in_query_or_key.dtype)  # (..., seq, d_k/2)
    sin = jnp.take(sin_table, token_positions, axis=0).astype(in_query_or_key.dtype)
    pairs = in_query_or_key.reshape(*in_query_or_key.shape[:-1], d_k // 2, 2)
    x0, x1 = pairs[..., 0], pairs[..., 1]
    rotated = jnp.stack([x0 * cos - x1 * sin, x0 * sin + x1 * cos], axis=-1)
    return rotated.reshape(*rotated.shape[:-2], d_k)
