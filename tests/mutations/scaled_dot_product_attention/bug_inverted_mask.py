"""masked_fill(mask.bool(), -inf) fills the positions that ARE allowed, hiding exactly the keys a query
may see (seeds 001/002 store the masked positions as True; this exercise stores the allowed ones)."""

import math

from reference.softmax import run_softmax

DIAGNOSIS = "inverted_mask"


def run_scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask.bool(), float("-inf"))
    return run_softmax(scores, dim=-1) @ V
