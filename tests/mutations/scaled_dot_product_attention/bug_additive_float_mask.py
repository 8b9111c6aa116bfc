"""Treats the 1.0/0.0 mask as an additive bias (as Hugging Face masks are, with 0 and -inf): adding 1
to the allowed scores changes little and masks nothing."""

import math

from reference.softmax import run_softmax

DIAGNOSIS = "additive_float_mask"


def run_scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores + mask
    return run_softmax(scores, dim=-1) @ V
