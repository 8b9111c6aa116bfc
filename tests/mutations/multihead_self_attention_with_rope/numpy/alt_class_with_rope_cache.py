"""A multi-head attention object in the CS336 style: it holds its four weight matrices and a RoPE module whose
float32 cos/sin tables (max_seq_len rows) are built once; forward splits heads, rotates queries and keys (the
positions get a head axis with [..., None, :]), runs causal attention and merges the heads."""

import math

import numpy as np


class RoPE:
    def __init__(self, d_k, theta, max_seq_len):
        inv_freq = 1.0 / theta ** (np.arange(0, d_k, 2, dtype=np.float32) / d_k)
        angles = np.arange(max_seq_len, dtype=np.float32)[:, None] * inv_freq
        self.cos, self.sin = np.cos(angles), np.sin(angles)  # (max_seq_len, d_k/2)

    def __call__(self, x, positions):
        cos, sin = self.cos[positions], self.sin[positions]
        even, odd = x[..., 0::2], x[..., 1::2]
        return np.stack([even * cos - odd * sin, even * sin + odd * cos], axis=-1).reshape(
            np.broadcast_shapes(x.shape, cos.shape[:-1] + x.shape[-1:]))


class MultiHeadSelfAttention:
    def __init__(self, d_model, num_heads, max_seq_len, theta, weights):
        self.d_model, self.num_heads = d_model, num_heads
        self.d_k = d_model // num_heads
        self.W_q, self.W_k, self.W_v, self.W_o = weights
        self.rope = RoPE(self.d_k, theta, max_seq_len)

    def split(self, x):
        x = x.reshape(*x.shape[:-1], self.num_heads, self.d_k)
        return np.swapaxes(x, -3, -2)  # (..., heads, seq, d_k)

    def forward(self, x, positions):
        q, k, v = (self.split(x @ w.T) for w in (self.W_q, self.W_k, self.W_v))
        head_positions = positions[..., None, :]
        q, k = self.rope(q, head_positions), self.rope(k, head_positions)
        seq = x.shape[-2]
        scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(self.d_k)
        scores = np.where(np.tril(np.ones((seq, seq), dtype=bool)), scores, -np.inf)
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        heads = weights / weights.sum(axis=-1, keepdims=True) @ v
        merged = np.swapaxes(heads, -3, -2)
        return merged.reshape(*merged.shape[:-2], self.d_model) @ self.W_o.T


def run_multihead_self_attention_with_rope(d_model, num_heads, max_seq_len, theta, q_proj_weight, k_proj_weight,
                                           v_proj_weight, o_proj_weight, in_features, token_positions=None):
    layer = MultiHeadSelfAttention(d_model, num_heads, max_seq_len, theta,
                                   (q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight))
    if token_positions is None:
        token_positions = np.arange(in_features.shape[-2])
    return layer.forward(in_features, token_positions).astype(in_features.dtype)
