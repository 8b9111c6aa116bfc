"""jax.lax.broadcasted_iota, the lax way to number rows and columns: row index >= column index is the causal
mask (key j allowed for query i where j <= i)."""

import jax.numpy as jnp
from jax import lax


def run_causal_mask(seq_len, device=None):
    rows = lax.broadcasted_iota(jnp.int32, (seq_len, seq_len), 0)
    cols = lax.broadcasted_iota(jnp.int32, (seq_len, seq_len), 1)
    return rows >= cols
