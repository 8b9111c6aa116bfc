"""Meta Llama's complex route in MindSpore: each interleaved pair becomes the complex number
x[2i] + i·x[2i+1] (`ops.Complex`), multiplied by e^{i·angle} (`ops.polar(ones, angles)`), and `ops.real` /
`ops.imag` are interleaved back with `ops.stack` and a reshape. Correct: multiplying by e^{iα} is the
rotation by +α, (x0 cos α − x1 sin α) + i(x0 sin α + x1 cos α); computed in float32 (complex64), or float64
(complex128) for float64 inputs. MindSpore 2.10 cannot differentiate a complex Mul, so the gradient law
fails with its "gradient not support for complex type" (docs/mindspore.md): the values are right, but a model
using it could not be trained in MindSpore."""

import mindspore
from mindspore import ops

PENDING = ("MindSpore 2.10 has no gradient for complex Mul ('gradient not support for complex type'): the "
           "gradient law fails although every value is right")


def run_rope(d_k, theta, max_seq_len, in_query_or_key, token_positions):
    work = mindspore.float64 if in_query_or_key.dtype == mindspore.float64 else mindspore.float32
    x = in_query_or_key.astype(work)
    freqs = 1.0 / theta ** (ops.arange(0, d_k, 2, dtype=work) / d_k)  # (d_k/2,)
    angles = token_positions.astype(work).expand_dims(-1) * freqs  # (..., seq, d_k/2)
    rotation = ops.polar(ops.ones_like(angles), angles)  # e^{i·angle}
    pairs = ops.Complex()(x[..., 0::2], x[..., 1::2])  # (..., seq, d_k/2)
    rotated = pairs * rotation
    out = ops.stack((ops.real(rotated), ops.imag(rotated)), axis=-1)  # (..., seq, d_k/2, 2)
    return out.reshape(*out.shape[:-2], d_k).astype(in_query_or_key.dtype)
