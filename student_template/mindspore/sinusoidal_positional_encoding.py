# Your implementation: keep every function's name, arguments and annotations; replace each
# `raise NotImplementedError`. `attnlab check <exercise>` checks one exercise, `attnlab status` all.
"""Sinusoidal positional encoding in MindSpore (Vaswani et al. 2017, "Attention Is All You Need", §3.5).

Attention by itself ignores word order: permuting the tokens permutes its output. The original Transformer
adds to every token embedding a vector that depends only on the token's position. Each pair of columns
(2i, 2i+1) holds (sin, cos) of the position times one frequency ω_i = base^(−2i/d_model); the frequencies
fall geometrically from 1 (a wavelength of 2π positions) to about 1/base. Because a pair is a point on the
unit circle turning at a fixed speed, moving every position by the same offset rotates each pair by the
same angle: PE(p) · PE(q) depends only on p − q. RoPE (rope.py) uses the same frequencies, but rotates
queries and keys inside attention instead of adding a vector to the input.
"""

import mindspore
from jaxtyping import Float32, Int
from mindspore import ops


def run_sinusoidal_positional_encoding(
    positions: Int[mindspore.Tensor, "*batch"],
    d_model: int,
    base: float = 10000.0,
) -> Float32[mindspore.Tensor, "*batch d_model"]:
    """The sinusoidal positional encoding of each position: PE[p, 2i] = sin(p·ω_i), PE[p, 2i+1] = cos(p·ω_i).

    ω_i = base^(−2i/d_model) for i = 0, 1, …: columns 2i and 2i+1 share one frequency (interleaved, not the
    sines in one half and the cosines in the other). An odd d_model ends with a sine column.

    Args:
        positions: integer positions of any shape (*batch), e.g. (seq,) or (batch, seq). They may be
            negative, repeated, out of order or in the thousands; use their values, not their indices.
        d_model: number of columns of the encoding (the embedding size); may be odd.
        base: the base of the frequencies (10000 in the paper).

    Returns:
        A new float32 mindspore.Tensor of shape (*batch, d_model); every value is in [−1, 1].

    中文：正弦位置编码：第 2i 列为 sin(p·ω_i)，第 2i+1 列为 cos(p·ω_i)，ω_i = base^(−2i/d_model)；使用 positions 的值。
    """
    raise NotImplementedError("exercise sinusoidal_positional_encoding: implement run_sinusoidal_positional_encoding")
