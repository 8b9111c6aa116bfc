"""The module style of RoPE: an nn.Cell that precomputes float32 cos and sin tables for positions
0 .. max_seq_len − 1 in __init__ (each frequency repeated twice with `ops.repeat_interleave`, the interleaved
layout), looks them up by `token_positions` in construct, and computes x·cos + rotate_every_two(x)·sin, where
rotate_every_two(x) = (−x[1], x[0], −x[3], x[2], ...). Correct: for each pair this is
(x0·cos − x1·sin, x1·cos + x0·sin), the rotation by +angle; the table lookup broadcasts the positions' leading
dims; the float32 table is within the spec's float32-angle tolerance, also for float64 inputs."""

import mindspore
from mindspore import nn, ops


class RotaryPositionalEmbedding(nn.Cell):
    def __init__(self, d_k, theta, max_seq_len):
        super().__init__()
        inv_freq = 1.0 / theta ** (ops.arange(0, d_k, 2, dtype=mindspore.float32) / d_k)  # (d_k/2,)
        t = ops.arange(max_seq_len, dtype=mindspore.float32)
        angles = ops.outer(t, inv_freq)  # (max_seq_len, d_k/2)
        angles = ops.repeat_interleave(angles, 2, axis=-1)  # (max_seq_len, d_k): a0, a0, a1, a1, ...
        self.cos_cached = ops.cos(angles)
        self.sin_cached = ops.sin(angles)

    @staticmethod
    def rotate_every_two(x):
        x1, x2 = x[..., 0::2], x[..., 1::2]
        return ops.stack((-x2, x1), axis=-1).reshape(x.shape)

    def construct(self, x, token_positions):
        cos = self.cos_cached[token_positions].astype(x.dtype)  # (..., seq, d_k)
        sin = self.sin_cached[token_positions].astype(x.dtype)
        return x * cos + self.rotate_every_two(x) * sin


def run_rope(d_k, theta, max_seq_len, in_query_or_key, token_positions):
    rope = RotaryPositionalEmbedding(d_k, theta, max_seq_len)
    x = in_query_or_key
    compute = x.astype(mindspore.float32) if x.dtype == mindspore.float16 else x
    return rope(compute, token_positions).astype(x.dtype)
