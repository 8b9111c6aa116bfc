"""Uncomments seed 000's flash-attention line, F.scaled_dot_product_attention(q, k, v, is_causal=True),
which the exercise forbids."""

import torch.nn.functional as F

DIAGNOSIS = None


def run_gpt2_causal_self_attention(n_embd, n_head, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias,
                                   in_features):
    *batch, T, C = in_features.shape
    q, k, v = F.linear(in_features, c_attn_weight, c_attn_bias).split(n_embd, dim=-1)
    q, k, v = (x.reshape(*batch, T, n_head, C // n_head).transpose(-3, -2) for x in (q, k, v))
    y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    return F.linear(y.transpose(-3, -2).reshape(*batch, T, C), c_proj_weight, c_proj_bias)
