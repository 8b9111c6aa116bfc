"""Frequencies by the exp-log identity, as sinusoidal-encoding tutorials write them:
`ops.exp(ops.arange(0, d_k, 2) * -(math.log(theta) / d_k))` = θ^(−2i/d_k), angles and rotation in float32
(float64 for float64 inputs), the rotated pairs interleaved back with `ops.stack` and a reshape."""

import math

import mindspore
from mindspore import ops


def run_rope(d_k, theta, max_seq_len, in_query_or_key, token_positions):
    work = mindspore.float64 if in_query_or_key.dtype == mindspore.float64 else mindspore.float32
    x = in_query_or_key.astype(work)
    inv_freq = ops.exp(ops.arange(0, d_k, 2, dtype=work) * -(math.log(theta) / d_k))  # (d_k/2,)
    angles = token_positions.astype(work).expand_dims(-1) * inv_freq  # (..., seq, d_k/2)
    cos, sin = ops.cos(angles), ops.sin(angles)
    even, odd = x[..., 0::2], x[..., 1::2]
    out = ops.stack((even * cos - odd * sin, even * sin + odd * cos), axis=-1)
    return out.reshape(x.shape).astype(in_query_or_key.dtype)
