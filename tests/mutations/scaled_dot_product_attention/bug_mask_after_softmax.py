"""Multiplies the softmax weights by the mask afterwards without renormalising (seed 001 §3.5.1 step 2
without step 3): the masked keys get weight 0 but the rows no longer sum to 1."""

import math

from reference.softmax import run_softmax

DIAGNOSIS = "mask_after_softmax"


def run_scaled_dot_product_attention(Q, K, V, mask=None):
    weights = run_softmax(Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1]), dim=-1)
    if mask is not None:
        weights = weights * mask
    return weights @ V
