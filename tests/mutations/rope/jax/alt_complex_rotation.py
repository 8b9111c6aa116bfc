"""Llama's formulation: each pair (x[2i], x[2i+1]) as the complex number x[2i] + i·x[2i+1], rotated by
multiplying with exp(i·angle); the real and imaginary parts are the rotated pair. Computed in complex64
(complex128 for float64 inputs) and cast back."""

import jax.numpy as jnp


def run_rope(d_k, theta, max_seq_len, in_query_or_key, token_positions):
    real_dtype = jnp.promote_types(in_query_or_key.dtype, jnp.float32)
    x = in_query_or_key.astype(real_dtype).reshape(*in_query_or_key.shape[:-1], d_k // 2, 2)
    pairs = x[..., 0] + 1j * x[..., 1]  # (..., seq, d_k/2)
    frequencies = 1.0 / theta ** (jnp.arange(0, d_k, 2, dtype=real_dtype) / d_k)
    angles = token_positions.astype(real_dtype)[..., None] * frequencies
    rotated = pairs * jnp.exp(1j * angles)
    out = jnp.stack([rotated.real, rotated.imag], axis=-1).reshape(in_query_or_key.shape)
    return out.astype(in_query_or_key.dtype)
