"""Heads as a named einsum axis: the projections are reshaped to (..., seq, heads, d_k) and never transposed;
"...qhd,...khd->...hqk" gives every head's scores and "...hqk,...khd->...qhd" puts the heads' outputs back side
by side. Float32 inside for bfloat16 (np.einsum does not take it)."""

import numpy as np


def run_multihead_self_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                                 in_features, o_proj_bias=None):
    work = np.promote_types(in_features.dtype, np.float32)
    x = in_features.astype(work)
    *lead, seq, _ = x.shape
    d_k = d_model // num_heads
    q, k, v = (np.einsum("...si,oi->...so", x, w.astype(work)).reshape(*lead, seq, num_heads, d_k)
               for w in (q_proj_weight, k_proj_weight, v_proj_weight))
    scores = np.einsum("...qhd,...khd->...hqk", q, k) / np.sqrt(d_k, dtype=work)
    scores = np.where(np.tril(np.ones((seq, seq), dtype=bool)), scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    context = np.einsum("...hqk,...khd->...qhd", weights, v).reshape(*lead, seq, d_model)
    out = np.einsum("...si,oi->...so", context, o_proj_weight.astype(work))
    if o_proj_bias is not None:
        out = out + o_proj_bias.astype(work)
    return out.astype(in_features.dtype)
