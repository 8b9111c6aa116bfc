"""RoPE as complex multiplication (the Llama reference does the same in torch): each pair
(x[2i], x[2i+1]) is the complex number x[2i] + i·x[2i+1], multiplied by e^{i·angle}."""

import numpy as np


def run_rope(d_k, theta, max_seq_len, in_query_or_key, token_positions):
    x = in_query_or_key.astype(np.float64)
    as_complex = x[..., 0::2] + 1j * x[..., 1::2]
    angles = token_positions[..., None] / theta ** (np.arange(0, d_k, 2) / d_k)
    rotated = as_complex * np.exp(1j * angles)
    out = np.empty_like(x)
    out[..., 0::2], out[..., 1::2] = rotated.real, rotated.imag
    return out.astype(in_query_or_key.dtype)
