"""RoPE as the textbook's block rotation: for every token and pair a 2 × 2 matrix
[[cos a, −sin a], [sin a, cos a]] is built with `ops.stack`, and `ops.matmul` applies it to the pair
(x[2i], x[2i+1]) viewed as a column vector; the float32 (float64 for float64 inputs) result is cast back.
Correct: the matrix rotates by +a with a = position·θ^(−2i/d_k), and reshaping (..., d_k) to
(..., d_k/2, 2) pairs exactly the interleaved neighbours."""

import mindspore
from mindspore import ops


def run_rope(d_k, theta, max_seq_len, in_query_or_key, token_positions):
    work = mindspore.float64 if in_query_or_key.dtype == mindspore.float64 else mindspore.float32
    x = in_query_or_key.astype(work)
    inv_freq = ops.pow(theta, -ops.arange(0, d_k, 2, dtype=work) / d_k)  # (d_k/2,)
    angles = token_positions.astype(work).expand_dims(-1) * inv_freq  # (..., seq, d_k/2)
    cos, sin = ops.cos(angles), ops.sin(angles)
    rotation = ops.stack((ops.stack((cos, -sin), axis=-1), ops.stack((sin, cos), axis=-1)), axis=-2)  # (.., 2, 2)
    pairs = x.reshape(*x.shape[:-1], d_k // 2, 2, 1)  # (..., seq, d_k/2, 2, 1)
    rotated = ops.matmul(rotation, pairs)  # (..., seq, d_k/2, 2, 1)
    return rotated.reshape(rotated.shape[:-3] + (d_k,)).astype(in_query_or_key.dtype)
