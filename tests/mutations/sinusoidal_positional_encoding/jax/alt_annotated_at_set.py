"""The Annotated Transformer's recipe with JAX's functional updates: div_term = exp(2i · (−ln(base) / d_model)),
pe = jnp.zeros(...).at[..., 0::2].set(sin(p · div_term)).at[..., 1::2].set(cos(...)) with one column fewer of
cosines when d_model is odd. Float32, JAX's default."""

import math

import jax.numpy as jnp


def run_sinusoidal_positional_encoding(positions, d_model, base=10000.0):
    div_term = jnp.exp(jnp.arange(0, d_model, 2, dtype=jnp.float32) * -(math.log(base) / d_model))
    angles = positions.astype(jnp.float32)[..., None] * div_term
    pe = jnp.zeros((*positions.shape, d_model), dtype=jnp.float32)
    pe = pe.at[..., 0::2].set(jnp.sin(angles))
    pe = pe.at[..., 1::2].set(jnp.cos(angles[..., : d_model // 2]))
    return pe
