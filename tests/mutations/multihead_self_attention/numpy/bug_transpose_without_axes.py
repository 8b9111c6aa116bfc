"""Moves the head axis with `x.transpose()` as if it were torch's transpose(1, 2): NumPy's transpose with
no axes reverses them all, so (batch, seq, heads, d_k) becomes (d_k, heads, seq, batch) and the batch
and feature axes get mixed up."""

import math

import numpy as np

DIAGNOSIS = None


def run_multihead_self_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight,
                                 o_proj_weight, in_features, o_proj_bias=None):
    *batch, seq, _ = in_features.shape
    d_k = d_model // num_heads

    def heads(x):
        return x.reshape(*batch, seq, num_heads, d_k).transpose()

    q, k, v = (heads(in_features @ w.T) for w in (q_proj_weight, k_proj_weight, v_proj_weight))
    scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(d_k)
    scores = np.where(np.tril(np.ones((scores.shape[-2], scores.shape[-1]), dtype=bool)), scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    merged = (weights @ v).transpose().reshape(*batch, seq, d_model)
    out = merged @ o_proj_weight.T
    if o_proj_bias is not None:
        out = out + o_proj_bias
    return out.astype(in_features.dtype)
