"""The rotated pairs written back with JAX's functional updates: out = jnp.zeros_like(x).at[..., 0::2].set(...)
then .at[..., 1::2].set(...) (assigned back: arrays are immutable); angles as positions ⊗ inverse frequencies
with jnp.outer-style broadcasting, in float32 (float64 for float64 inputs), cast back."""

import jax.numpy as jnp


def run_rope(d_k, theta, max_seq_len, in_query_or_key, token_positions):
    work = jnp.promote_types(in_query_or_key.dtype, jnp.float32)
    x = in_query_or_key.astype(work)
    inv_freq = 1.0 / (theta ** (jnp.arange(0, d_k, 2).astype(work) / d_k))
    angles = token_positions.astype(work)[..., None] * inv_freq
    cos, sin = jnp.cos(angles), jnp.sin(angles)
    even, odd = x[..., ::2], x[..., 1::2]
    out = jnp.zeros(jnp.broadcast_shapes(x.shape, cos.shape[:-1] + (d_k,)), dtype=work)
    out = out.at[..., ::2].set(even * cos - odd * sin)
    out = out.at[..., 1::2].set(even * sin + odd * cos)
    return out.astype(in_query_or_key.dtype)
