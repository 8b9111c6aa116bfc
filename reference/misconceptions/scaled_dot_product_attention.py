"""Wrong scaled dot-product attention (seed 004's masked_fill(mask == 0.0, -inf) is the right way round)."""

import math

from reference.softmax import run_softmax


def _masked(scores, mask):
    return scores if mask is None else scores.masked_fill(~mask.bool(), float("-inf"))


def scale_by_d_v(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(V.shape[-1])
    return run_softmax(_masked(scores, mask), dim=-1) @ V


def no_scaling(Q, K, V, mask=None):
    return run_softmax(_masked(Q @ K.transpose(-2, -1), mask), dim=-1) @ V


def inverted_mask(Q, K, V, mask=None):
    """masked_fill(mask, -inf): the ALLOWED positions are filled, the forbidden ones kept."""
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask.bool(), float("-inf"))
    return run_softmax(scores, dim=-1) @ V


def mask_after_softmax(Q, K, V, mask=None):
    """Weights multiplied by the mask after the softmax, rows not renormalised."""
    weights = run_softmax(Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1]), dim=-1)
    if mask is not None:
        weights = weights * mask.to(weights.dtype)
    return weights @ V


def additive_float_mask(Q, K, V, mask=None):
    """The 1.0/0.0 (or True/False) mask added to the scores as if it were an additive -inf/0 bias."""
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores + mask.to(scores.dtype)
    return run_softmax(scores, dim=-1) @ V
