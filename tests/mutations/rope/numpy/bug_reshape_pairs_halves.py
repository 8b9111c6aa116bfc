"""Groups the pairs with `x.reshape(..., 2, d_k // 2)` instead of `(..., d_k // 2, 2)`: NumPy fills the
last axis first, so "pair" i becomes (x[i], x[i + d_k/2]), the first half rotated with the second half
(the GPT-NeoX layout), not the interleaved (x[2i], x[2i+1])."""

import numpy as np

DIAGNOSIS = "rotate_half"


def run_rope(d_k, theta, max_seq_len, in_query_or_key, token_positions):
    x = in_query_or_key.astype(np.float64)
    pairs = x.reshape(*x.shape[:-1], 2, d_k // 2)
    first, second = pairs[..., 0, :], pairs[..., 1, :]
    angles = token_positions[..., None] * theta ** (-np.arange(0, d_k, 2) / d_k)
    cos, sin = np.cos(angles), np.sin(angles)
    rotated = np.stack([first * cos - second * sin, first * sin + second * cos], axis=-2)
    return rotated.reshape(x.shape).astype(in_query_or_key.dtype)
