"""The rotation written as what it is: a 2x2 matrix [[cos, -sin], [sin, cos]] per position and pair, applied to
the pairs (x[2i], x[2i+1]) (the input reshaped to (..., seq, d_k/2, 2)) with np.einsum; float64 throughout."""

import numpy as np


def run_rope(d_k, theta, max_seq_len, in_query_or_key, token_positions):
    pairs = in_query_or_key.astype(np.float64).reshape(*in_query_or_key.shape[:-1], d_k // 2, 2)
    freqs = theta ** (-np.arange(d_k // 2) * 2.0 / d_k)  # (d_k/2,)
    angles = token_positions[..., None].astype(np.float64) * freqs  # (..., seq, d_k/2)
    cos, sin = np.cos(angles), np.sin(angles)
    rotation = np.stack([np.stack([cos, -sin], axis=-1), np.stack([sin, cos], axis=-1)], axis=-2)  # (..., 2, 2)
    rotated = np.einsum("...ij,...j->...i", rotation, pairs)  # (..., seq, d_k/2, 2)
    return rotated.reshape(*rotated.shape[:-2], d_k).astype(in_query_or_key.dtype)
