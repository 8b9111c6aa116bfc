"""Forgets the 1/√d_k: softmax(Q Kᵀ) V, the weight-free formula of seed 001 §3.3."""

from reference.softmax import run_softmax

DIAGNOSIS = "no_scaling"


def run_scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    return run_softmax(scores, dim=-1) @ V
