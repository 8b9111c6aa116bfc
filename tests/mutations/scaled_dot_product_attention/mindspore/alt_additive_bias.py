"""The mask turned into an additive bias first: 0 where a key is allowed and -inf where it is not
(`ops.masked_fill` on zeros), added to the scaled scores, then `ops.softmax(..., axis=-1)`. Correct: adding
-inf makes a score -inf exactly where the mask is False / 0.0 (the mask is cast to bool, so a float 1.0 means
allowed), which the softmax turns into weight 0; adding 0 changes nothing elsewhere. The bias broadcasts
like the mask."""

import math

import mindspore
from mindspore import ops


def run_scaled_dot_product_attention(Q, K, V, mask=None):
    scores = ops.matmul(Q, ops.swapaxes(K, -2, -1)) / math.sqrt(Q.shape[-1])  # (..., queries, keys)
    if mask is not None:
        allowed = mask.astype(mindspore.bool_)
        bias = ops.masked_fill(ops.zeros(allowed.shape, scores.dtype), ops.logical_not(allowed), float("-inf"))
        scores = scores + bias
    return ops.matmul(ops.softmax(scores, axis=-1), V)
