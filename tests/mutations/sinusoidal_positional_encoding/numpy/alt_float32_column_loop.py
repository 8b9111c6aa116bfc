"""Column by column, in float32 as the formula reads: for each column j, the frequency is
1 / base^(2·(j // 2) / d_model), and the column is the sine (j even) or cosine (j odd) of position × frequency.
Float32 angles are what the spec's tolerance allows for (about |p|·8e-8 rad)."""

import numpy as np


def run_sinusoidal_positional_encoding(positions, d_model, base=10000.0):
    p = positions.astype(np.float32)
    pe = np.empty((*positions.shape, d_model), dtype=np.float32)
    for j in range(d_model):
        frequency = np.float32(1.0) / np.float32(base) ** np.float32(2 * (j // 2) / d_model)
        angle = p * frequency
        pe[..., j] = np.sin(angle) if j % 2 == 0 else np.cos(angle)
    return pe
