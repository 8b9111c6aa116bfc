"""Unpacks the fused projection as k, q, v = qkv.split(n_embd, dim=-1): queries and keys swap roles,
which under a causal mask changes every output."""

import torch.nn.functional as F

from reference.attention import run_causal_mask, run_scaled_dot_product_attention

DIAGNOSIS = "qkv_order"


def run_gpt2_causal_self_attention(n_embd, n_head, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias,
                                   in_features):
    *batch, T, C = in_features.shape
    k, q, v = F.linear(in_features, c_attn_weight, c_attn_bias).split(n_embd, dim=-1)
    q, k, v = (x.view(*batch, T, n_head, C // n_head).transpose(-3, -2) for x in (q, k, v))  # (.., nh, T, hs)
    y = run_scaled_dot_product_attention(q, k, v, mask=run_causal_mask(T))
    return F.linear(y.transpose(-3, -2).reshape(*batch, T, C), c_proj_weight, c_proj_bias)
