"""Seed 001 §3.5.1's mask of the future, `ops.triu(ops.ones((n, n), mindspore.float32), diagonal=1)`, turned
into bool with `.bool()` as seed 001 does for masked_fill, then negated with `ops.logical_not`. Correct: triu
with diagonal=1 marks exactly the keys j > i, so its negation is True where j <= i, the diagonal included."""

import mindspore
from mindspore import ops


def run_causal_mask(seq_len, device=None):
    mask = ops.triu(ops.ones((seq_len, seq_len), mindspore.float32), diagonal=1)  # 1.0 where j > i
    return ops.logical_not(mask.bool())
