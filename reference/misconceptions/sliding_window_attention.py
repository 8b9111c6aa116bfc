"""sliding_window_attention: known mistakes, one function per misconception id listed in
spec/sliding_window_attention.yaml, taking run_sliding_window_attention's arguments. Each is attention with a
wrong set of allowed (query i, key j) pairs; diagnosis names the one whose output the student's equals.
"""

import math

import torch


def _attend(Q, K, V, allowed):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    return torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1) @ V


def _positions(Q):
    seq = torch.arange(Q.shape[-2], device=Q.device)
    return seq[:, None], seq[None, :]  # query i (seq, 1), key j (1, seq)


def window_plus_one(Q, K, V, window):
    """i − window ≤ j ≤ i: window + 1 keys, FlashAttention's window_size=(window, 0) convention."""
    i, j = _positions(Q)
    return _attend(Q, K, V, (j <= i) & (j >= i - window))


def window_minus_one(Q, K, V, window):
    """i − window + 1 < j ≤ i: only window − 1 keys (window 1 sees nothing: NaN)."""
    i, j = _positions(Q)
    return _attend(Q, K, V, (j <= i) & (j > i - window + 1))


def window_ignored(Q, K, V, window):
    """Plain causal attention: every earlier key, however far back."""
    i, j = _positions(Q)
    return _attend(Q, K, V, j <= i)


def symmetric_band(Q, K, V, window):
    """|i − j| < window: a band on both sides of the diagonal (Longformer's local attention), not causal."""
    i, j = _positions(Q)
    return _attend(Q, K, V, (i - j).abs() < window)


def lower_edge_only(Q, K, V, window):
    """j > i − window without j ≤ i: the window's far edge but every future key."""
    i, j = _positions(Q)
    return _attend(Q, K, V, j > i - window)


def excludes_self(Q, K, V, window):
    """i − window ≤ j < i: the `window` tokens before i, without i itself (the first query sees nothing: NaN)."""
    i, j = _positions(Q)
    return _attend(Q, K, V, (j < i) & (j >= i - window))


def blocks_not_sliding(Q, K, V, window):
    """Causal attention inside fixed blocks of `window` tokens (i // window == j // window): the window does
    not slide, so a token at the start of a block sees only itself."""
    i, j = _positions(Q)
    return _attend(Q, K, V, (j <= i) & (i // window == j // window))
