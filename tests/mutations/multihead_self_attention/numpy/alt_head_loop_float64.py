"""A loop over heads: head h takes columns h*d_k .. (h+1)*d_k - 1 of the projected queries, keys and values,
runs causal attention on them (float64 throughout), and the head outputs are concatenated in order before the
output projection. Equivalent to the reshape/transpose split, written the way it is explained."""

import numpy as np


def run_multihead_self_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                                 in_features, o_proj_bias=None):
    x = in_features.astype(np.float64)
    q = x @ q_proj_weight.astype(np.float64).T
    k = x @ k_proj_weight.astype(np.float64).T
    v = x @ v_proj_weight.astype(np.float64).T
    seq, d_k = x.shape[-2], d_model // num_heads
    causal = np.tril(np.ones((seq, seq), dtype=bool))
    outputs = []
    for h in range(num_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        scores = q[..., cols] @ np.swapaxes(k[..., cols], -1, -2) / np.sqrt(d_k)
        scores = np.where(causal, scores, -np.inf)
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        weights /= weights.sum(axis=-1, keepdims=True)
        outputs.append(weights @ v[..., cols])
    out = np.concatenate(outputs, axis=-1) @ o_proj_weight.astype(np.float64).T
    if o_proj_bias is not None:
        out = out + o_proj_bias.astype(np.float64)
    return out.astype(in_features.dtype)
