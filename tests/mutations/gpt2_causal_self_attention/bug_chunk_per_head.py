"""Views the fused output as (..., T, n_head, 3·hs) and chunks q, k, v inside each head, as if c_attn were
laid out head by head; it is laid out q | k | v over the whole width."""

import torch.nn.functional as F

from reference.attention import run_causal_mask, run_scaled_dot_product_attention

DIAGNOSIS = "qkv_split_per_head"


def run_gpt2_causal_self_attention(n_embd, n_head, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias,
                                   in_features):
    *batch, T, C = in_features.shape
    qkv = F.linear(in_features, c_attn_weight, c_attn_bias).view(*batch, T, n_head, 3 * (C // n_head))
    q, k, v = (x.transpose(-3, -2) for x in qkv.chunk(3, dim=-1))  # (..., nh, T, hs)
    y = run_scaled_dot_product_attention(q, k, v, mask=run_causal_mask(T))
    return F.linear(y.transpose(-3, -2).reshape(*batch, T, C), c_proj_weight, c_proj_bias)
