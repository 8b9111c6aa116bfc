"""The band built from two triangles, Mistral-style: `ops.tril(ones)` keeps keys j <= i and
`ops.triu(..., diagonal=-(window - 1))` keeps keys j >= i − window + 1; scores outside are set to -inf with
`mint.where`, then `mint.nn.functional.softmax`. Correct: both conditions together are
i − window < j <= i, `window` keys (fewer at the start), and a window longer than the sequence leaves the
plain causal triangle."""

import math

import mindspore
from mindspore import mint, ops


def run_sliding_window_attention(Q, K, V, window):
    seq = Q.shape[-2]
    band = ops.triu(ops.tril(ops.ones((seq, seq), mindspore.float32)), diagonal=-(window - 1))  # 1.0 in the band
    scores = mint.matmul(Q, mint.transpose(K, -2, -1)) / math.sqrt(Q.shape[-1])
    scores = mint.where(band.astype(mindspore.bool_), scores, float("-inf"))
    return mint.matmul(mint.nn.functional.softmax(scores, dim=-1), V)
