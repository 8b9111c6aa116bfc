"""A loop over queries that slices each one's window: query i attends to keys max(0, i − window + 1) .. i
(`K[..., start:i + 1, :]`) with nn.Softmax over just those scores, and the rows are stacked with
`ops.stack(..., axis=-2)`. Correct: the slice holds exactly the keys the band allows, so no mask is needed,
and a softmax over the slice equals a softmax over all keys with the others at -inf."""

import math

from mindspore import nn, ops


def run_sliding_window_attention(Q, K, V, window):
    softmax = nn.Softmax(axis=-1)
    rows = []
    for i in range(Q.shape[-2]):
        start = max(0, i - window + 1)
        q = Q[..., i:i + 1, :]  # (..., 1, d_k)
        scores = ops.matmul(q, K[..., start:i + 1, :].swapaxes(-2, -1)) / math.sqrt(Q.shape[-1])  # (..., 1, w)
        rows.append(ops.matmul(softmax(scores), V[..., start:i + 1, :])[..., 0, :])  # (..., d_v)
    return ops.stack(rows, axis=-2)
