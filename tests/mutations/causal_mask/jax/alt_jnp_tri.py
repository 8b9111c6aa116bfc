"""jnp.tri(N, dtype=bool): the lower triangle (diagonal included) in one call, already boolean, placed on the
requested device with jax.device_put when one is given."""

import jax
import jax.numpy as jnp


def run_causal_mask(seq_len, device=None):
    mask = jnp.tri(seq_len, dtype=bool)
    return mask if device is None else jax.device_put(mask, device)
