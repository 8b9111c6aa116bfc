"""Uses F.scaled_dot_product_attention(..., is_causal=True, enable_gqa=True), which repeats the kv heads
itself: right values, but the library call the exercise forbids."""

import torch.nn.functional as F

DIAGNOSIS = None


def run_grouped_query_attention(d_model, num_heads, num_kv_heads, q_proj_weight, k_proj_weight, v_proj_weight,
                                o_proj_weight, in_features):
    *batch, T, _ = in_features.shape
    q = F.linear(in_features, q_proj_weight).unflatten(-1, (num_heads, -1)).transpose(-3, -2)
    k = F.linear(in_features, k_proj_weight).unflatten(-1, (num_kv_heads, -1)).transpose(-3, -2)
    v = F.linear(in_features, v_proj_weight).unflatten(-1, (num_kv_heads, -1)).transpose(-3, -2)
    y = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
    return F.linear(y.transpose(-3, -2).reshape(*batch, T, d_model), o_proj_weight)
