"""Applies RoPE to the full d_model-wide queries and keys before splitting them into heads, so the
frequencies run over d_model instead of restarting in every head of size d_k."""

import torch
import torch.nn.functional as F

from reference.attention import run_causal_mask, run_scaled_dot_product_attention
from reference.rope import run_rope

DIAGNOSIS = "rope_before_head_split"


def run_multihead_self_attention_with_rope(d_model, num_heads, max_seq_len, theta, q_proj_weight,
                                           k_proj_weight, v_proj_weight, o_proj_weight, in_features,
                                           token_positions=None):
    seq = in_features.shape[-2]
    if token_positions is None:
        token_positions = torch.arange(seq)
    q = run_rope(d_model, theta, max_seq_len, F.linear(in_features, q_proj_weight), token_positions)
    k = run_rope(d_model, theta, max_seq_len, F.linear(in_features, k_proj_weight), token_positions)
    v = F.linear(in_features, v_proj_weight)
    q, k, v = (x.unflatten(-1, (num_heads, -1)).transpose(-3, -2) for x in (q, k, v))
    y = run_scaled_dot_product_attention(q, k, v, mask=run_causal_mask(seq))
    return F.linear(y.transpose(-3, -2).flatten(-2), o_proj_weight)
