"""The Annotated Transformer's recipe in MindSpore, all in float32: `div_term = ops.exp(ops.arange(0, d_model, 2)
* -(math.log(base) / d_model))`, a zeros tensor filled by slice assignment `pe[..., 0::2] = sin(...)` and
`pe[..., 1::2] = cos(...)` (cut to d_model // 2 columns when d_model is odd). Correct: exp(−2i·ln(base)/d)
is base^(−2i/d), the even columns get the sines and the odd ones the cosines of the same frequency, and
float32 angles are within the spec's tolerance for |p| ≤ 8192."""

import math

import mindspore
from mindspore import ops


def run_sinusoidal_positional_encoding(positions, d_model, base=10000.0):
    position = positions.astype(mindspore.float32).expand_dims(-1)  # (*batch, 1)
    div_term = ops.exp(ops.arange(0, d_model, 2, dtype=mindspore.float32) * -(math.log(base) / d_model))
    pe = ops.zeros((*positions.shape, d_model), mindspore.float32)
    pe[..., 0::2] = ops.sin(position * div_term)
    pe[..., 1::2] = ops.cos(position * div_term)[..., : d_model // 2]
    return pe
