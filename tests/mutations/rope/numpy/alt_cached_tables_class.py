"""A RotaryEmbedding object built once per (d_k, theta, max_seq_len), as module-style courses write it: it
precomputes float32 cos/sin tables of shape (max_seq_len, d_k/2) and looks up each token's row by position;
the even and odd entries are rotated into a preallocated array with slice assignment. Correct: positions are
below max_seq_len, and float32 tables are what the spec's tolerance allows for (a common cos/sin table)."""

import numpy as np


class RotaryEmbedding:
    def __init__(self, d_k, theta, max_seq_len):
        inv_freq = 1.0 / theta ** (np.arange(0, d_k, 2, dtype=np.float32) / d_k)
        angles = np.outer(np.arange(max_seq_len, dtype=np.float32), inv_freq)  # (max_seq_len, d_k/2)
        self.cos_cached = np.cos(angles).astype(np.float32)
        self.sin_cached = np.sin(angles).astype(np.float32)

    def __call__(self, x, token_positions):
        cos = self.cos_cached[token_positions]  # (..., seq, d_k/2)
        sin = self.sin_cached[token_positions]
        x1, x2 = x[..., 0::2], x[..., 1::2]
        out = np.empty(np.broadcast_shapes(x.shape, cos.shape[:-1] + x.shape[-1:]), dtype=np.float32)
        out[..., 0::2] = x1 * cos - x2 * sin
        out[..., 1::2] = x1 * sin + x2 * cos
        return out


def run_rope(d_k, theta, max_seq_len, in_query_or_key, token_positions):
    rope = RotaryEmbedding(d_k, theta, max_seq_len)
    return rope(in_query_or_key, token_positions).astype(in_query_or_key.dtype)
