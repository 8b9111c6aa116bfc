"""No repeated keys: the queries are reshaped to (..., seq, kv_heads, group, d_head), so query head h lands in
group h // group of kv head h // group, and one einsum per product broadcasts each kv head over its group. Float32
inside for bfloat16 (np.einsum does not take it)."""

import numpy as np


def run_grouped_query_attention(d_model, num_heads, num_kv_heads, q_proj_weight, k_proj_weight, v_proj_weight,
                                o_proj_weight, in_features):
    work = np.promote_types(in_features.dtype, np.float32)
    x = in_features.astype(work)
    *lead, seq, _ = x.shape
    group, d_head = num_heads // num_kv_heads, d_model // num_heads
    q = (x @ q_proj_weight.astype(work).T).reshape(*lead, seq, num_kv_heads, group, d_head)
    k = (x @ k_proj_weight.astype(work).T).reshape(*lead, seq, num_kv_heads, d_head)
    v = (x @ v_proj_weight.astype(work).T).reshape(*lead, seq, num_kv_heads, d_head)
    scores = np.einsum("...qgrd,...kgd->...grqk", q, k) / np.sqrt(d_head).astype(work)
    scores = np.where(np.tri(seq, dtype=bool), scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    context = np.einsum("...grqk,...kgd->...qgrd", weights, v).reshape(*lead, seq, d_model)  # heads in order
    return (context @ o_proj_weight.astype(work).T).astype(in_features.dtype)
