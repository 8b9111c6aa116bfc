"""Float32 cos/sin tables of max_seq_len rows built once and indexed by position (table[positions]), heads as an
einsum axis of (..., seq, heads, d_k) (the positions get a trailing head axis, [..., None]), the rotation with
the rotate-pairs trick: out = x·cos + swap(x)·sin where swap(x) = (−x[2i+1], x[2i]) per pair. Einsums for the
scores and the weighted sum."""

import math

import jax.numpy as jnp


def _swap_pairs(x):
    pairs = x.reshape(*x.shape[:-1], -1, 2)
    return jnp.stack([-pairs[..., 1], pairs[..., 0]], axis=-1).reshape(x.shape)


def run_multihead_self_attention_with_rope(d_model, num_heads, max_seq_len, theta, q_proj_weight, k_proj_weight,
                                           v_proj_weight, o_proj_weight, in_features, token_positions=None):
    *lead, seq, _ = in_features.shape
    d_k = d_model // num_heads
    inv_freq = theta ** (-jnp.arange(0, d_k, 2, dtype=jnp.float32) / d_k)
    angles = jnp.repeat(jnp.arange(max_seq_len, dtype=jnp.float32)[:, None] * inv_freq, 2, axis=-1)  # (L, d_k)
    if token_positions is None:
        token_positions = jnp.arange(seq)
    cos = jnp.cos(angles)[token_positions][..., None, :].astype(in_features.dtype)  # (..., seq, 1, d_k)
    sin = jnp.sin(angles)[token_positions][..., None, :].astype(in_features.dtype)
    q, k, v = (jnp.einsum("...si,oi->...so", in_features, w).reshape(*lead, seq, num_heads, d_k)
               for w in (q_proj_weight, k_proj_weight, v_proj_weight))
    q = q * cos + _swap_pairs(q) * sin
    k = k * cos + _swap_pairs(k) * sin
    scores = jnp.einsum("...qhd,...khd->...hqk", q, k) / math.sqrt(d_k)
    scores = jnp.where(jnp.tril(jnp.ones((seq, seq), dtype=bool)), scores, -jnp.inf)
    weights = jnp.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    context = jnp.einsum("...hqk,...khd->...qhd", weights, v).reshape(*lead, seq, d_model)
    return context @ o_proj_weight.T
