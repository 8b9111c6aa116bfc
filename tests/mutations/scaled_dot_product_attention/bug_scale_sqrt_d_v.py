"""Scales by √d_v, the last dim of V, instead of √d_k; the two differ whenever d_v != d_k."""

import math

from reference.softmax import run_softmax

DIAGNOSIS = "scale_by_d_v"


def run_scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(V.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    return run_softmax(scores, dim=-1) @ V
