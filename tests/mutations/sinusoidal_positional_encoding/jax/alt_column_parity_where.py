"""One angle per column: column j uses frequency base^(−2·(j // 2) / d_model), and jnp.where on the column's parity
picks sin (even j) or cos (odd j), so the interleaving and an odd d_model need no slicing at all."""

import jax.numpy as jnp


def run_sinusoidal_positional_encoding(positions, d_model, base=10000.0):
    columns = jnp.arange(d_model)
    frequencies = jnp.power(jnp.float32(base), -(2 * (columns // 2)).astype(jnp.float32) / d_model)
    angles = positions[..., None].astype(jnp.float32) * frequencies  # (*batch, d_model)
    return jnp.where(columns % 2 == 0, jnp.sin(angles), jnp.cos(angles)).astype(jnp.float32)
