"""All heads at once with np.einsum: the stacked (heads, d_out, d_in) weights project the input into
(..., heads, seq, d_out) in one call, causal attention runs on every head together, and the head axis is moved
next to d_out and merged (head h in columns h*d_out .. (h+1)*d_out - 1). Float32 inside for bfloat16, which
np.einsum does not take."""

import numpy as np


def run_multihead_attention_wrapper(d_in, d_out, num_heads, q_proj_weights, k_proj_weights, v_proj_weights,
                                    in_features):
    work = np.promote_types(in_features.dtype, np.float32)
    x = in_features.astype(work)
    q, k, v = (np.einsum("...si,hoi->...hso", x, w.astype(work))
               for w in (q_proj_weights, k_proj_weights, v_proj_weights))  # (..., heads, seq, d_out)
    seq = x.shape[-2]
    scores = np.einsum("...hqd,...hkd->...hqk", q, k) / np.float32(d_out) ** 0.5
    scores[..., np.triu(np.ones((seq, seq), dtype=bool), k=1)] = -np.inf
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    heads = np.einsum("...hqk,...hkd->...qhd", weights, v)  # (..., seq, heads, d_out)
    return heads.reshape(*heads.shape[:-2], num_heads * d_out).astype(in_features.dtype)
