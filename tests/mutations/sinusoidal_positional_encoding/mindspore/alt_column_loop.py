"""One column at a time: for column j the frequency is base^(−2·(j // 2)/d_model), the column is its sine
when j is even and its cosine when j is odd, and `ops.stack(columns, axis=-1)` joins them. Correct: columns
2i and 2i+1 share frequency i, sine first, so the stacked columns are the interleaved encoding for any
d_model, odd ones included; angles in float64, the result float32."""

import mindspore
from mindspore import ops


def run_sinusoidal_positional_encoding(positions, d_model, base=10000.0):
    p = positions.astype(mindspore.float64)
    columns = []
    for j in range(d_model):
        angle = p * base ** (-2 * (j // 2) / d_model)
        columns.append(ops.sin(angle) if j % 2 == 0 else ops.cos(angle))
    return ops.stack(columns, axis=-1).astype(mindspore.float32)
