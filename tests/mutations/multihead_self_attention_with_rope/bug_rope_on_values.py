"""Rotates the values as well as the queries and keys. RoPE belongs on q and k only (seed 004: "值不需要位置
信息"); rotating v changes what is averaged."""

import torch
import torch.nn.functional as F

from reference.attention import run_causal_mask, run_scaled_dot_product_attention
from reference.rope import run_rope

DIAGNOSIS = "rope_on_values"


def run_multihead_self_attention_with_rope(d_model, num_heads, max_seq_len, theta, q_proj_weight,
                                           k_proj_weight, v_proj_weight, o_proj_weight, in_features,
                                           token_positions=None):
    seq, d_k = in_features.shape[-2], d_model // num_heads
    if token_positions is None:
        token_positions = torch.arange(seq)
    q, k, v = (F.linear(in_features, w).unflatten(-1, (num_heads, d_k)).transpose(-3, -2)
               for w in (q_proj_weight, k_proj_weight, v_proj_weight))
    q, k, v = (run_rope(d_k, theta, max_seq_len, x, token_positions.unsqueeze(-2)) for x in (q, k, v))
    y = run_scaled_dot_product_attention(q, k, v, mask=run_causal_mask(seq))
    return F.linear(y.transpose(-3, -2).flatten(-2), o_proj_weight)
