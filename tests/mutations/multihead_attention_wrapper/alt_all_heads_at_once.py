"""Projects all heads at once with einsum over the stacked weights (..., heads, seq, d_out), runs one
batched causal attention, then lays the heads side by side."""

import torch

from reference.attention import run_causal_mask, run_scaled_dot_product_attention


def run_multihead_attention_wrapper(d_in, d_out, num_heads, q_proj_weights, k_proj_weights, v_proj_weights,
                                    in_features):
    q, k, v = (torch.einsum("...si,hoi->...hso", in_features, w)
               for w in (q_proj_weights, k_proj_weights, v_proj_weights))  # (..., heads, seq, d_out)
    mask = run_causal_mask(in_features.shape[-2], device=in_features.device)
    heads = run_scaled_dot_product_attention(q, k, v, mask=mask)  # (..., heads, seq, d_out)
    return heads.movedim(-3, -2).flatten(-2)  # (..., seq, heads * d_out), head 0 first
