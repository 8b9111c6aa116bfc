"""One head at a time: head h uses rows h·d_k .. (h+1)·d_k of each projection weight (its slice of the
output features), runs causal attention; the head outputs are concatenated before the output projection."""

import torch
import torch.nn.functional as F

from reference.attention import run_causal_mask, run_scaled_dot_product_attention


def run_multihead_self_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight,
                                 o_proj_weight, in_features, o_proj_bias=None):
    d_k = d_model // num_heads
    mask = run_causal_mask(in_features.shape[-2], device=in_features.device)
    heads = []
    for h in range(num_heads):
        rows = slice(h * d_k, (h + 1) * d_k)
        q, k, v = (F.linear(in_features, w[rows]) for w in (q_proj_weight, k_proj_weight, v_proj_weight))
        heads.append(run_scaled_dot_product_attention(q, k, v, mask=mask))  # (..., seq, d_k)
    return F.linear(torch.cat(heads, dim=-1), o_proj_weight, o_proj_bias)
