"""np.einsum for both products and an additive mask (0 where a key is allowed, -inf where not) added to the
scores. np.einsum does not take ml_dtypes.bfloat16, so bfloat16 inputs are computed in float32 and cast back."""

import numpy as np


def run_scaled_dot_product_attention(Q, K, V, mask=None):
    work = np.promote_types(Q.dtype, np.float32)
    q, k, v = Q.astype(work), K.astype(work), V.astype(work)
    scores = np.einsum("...qd,...kd->...qk", q, k) / np.sqrt(q.shape[-1]).astype(work)
    if mask is not None:
        scores = scores + np.where(mask.astype(bool), 0.0, -np.inf).astype(work)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return np.einsum("...qk,...kd->...qd", weights, v).astype(Q.dtype)
