"""Reads "the previous `window` tokens" literally: keys i − window .. i − 1, leaving out the query itself, so
the first query has no key at all (NaN)."""

import math

import torch

DIAGNOSIS = "excludes_self"


def run_sliding_window_attention(Q, K, V, window):
    T = Q.shape[-2]
    q_idx = torch.arange(T)[:, None]
    k_idx = torch.arange(T)[None, :]
    allowed = (k_idx < q_idx) & (k_idx >= q_idx - window)
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    return torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1) @ V
