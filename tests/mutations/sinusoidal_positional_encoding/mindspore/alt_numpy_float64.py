"""The encoding computed in NumPy float64 (`np.outer` of the positions and the frequencies, sines into the
even columns and cosines into the odd ones) and returned as `mindspore.Tensor(..., mindspore.float32)`.
Correct: `positions.asnumpy()` keeps the values and the shape, the frequencies are base^(−2i/d_model), and
an odd d_model leaves its last column a sine; the result is the float32 Tensor the exercise asks for."""

import mindspore
import numpy as np


def run_sinusoidal_positional_encoding(positions, d_model, base=10000.0):
    p = positions.asnumpy().astype(np.float64)
    freqs = base ** (-np.arange(0, d_model, 2, dtype=np.float64) / d_model)  # (ceil(d_model / 2),)
    angles = np.multiply.outer(p, freqs)  # (*batch, ceil(d_model / 2))
    pe = np.empty((*p.shape, d_model))
    pe[..., 0::2] = np.sin(angles)
    pe[..., 1::2] = np.cos(angles[..., : d_model // 2])
    return mindspore.Tensor(pe, mindspore.float32)
