"""A loop over the query heads, in float64: query head h takes its columns of the projected queries and the
columns of kv head h // (num_heads // num_kv_heads) of the keys and values, runs causal attention, and the head
outputs are concatenated in order before W_o."""

import numpy as np


def run_grouped_query_attention(d_model, num_heads, num_kv_heads, q_proj_weight, k_proj_weight, v_proj_weight,
                                o_proj_weight, in_features):
    x = in_features.astype(np.float64)
    q = x @ q_proj_weight.astype(np.float64).T  # (..., seq, d_model)
    k = x @ k_proj_weight.astype(np.float64).T  # (..., seq, num_kv_heads * d_head)
    v = x @ v_proj_weight.astype(np.float64).T
    d_head, group = d_model // num_heads, num_heads // num_kv_heads
    seq = x.shape[-2]
    causal = np.tril(np.ones((seq, seq), dtype=bool))
    outputs = []
    for h in range(num_heads):
        g = h // group
        q_h = q[..., h * d_head:(h + 1) * d_head]
        k_h, v_h = k[..., g * d_head:(g + 1) * d_head], v[..., g * d_head:(g + 1) * d_head]
        scores = np.where(causal, q_h @ np.swapaxes(k_h, -1, -2) / np.sqrt(d_head), -np.inf)
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        outputs.append(weights / weights.sum(axis=-1, keepdims=True) @ v_h)
    out = np.concatenate(outputs, axis=-1) @ o_proj_weight.astype(np.float64).T
    return out.astype(in_features.dtype)
