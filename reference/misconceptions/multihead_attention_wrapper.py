"""Wrong stacks of causal heads (seed 002's MultiHeadAttentionWrapper, seed 001 §3.6.1)."""

import math

import torch
import torch.nn.functional as F

from reference.attention import run_causal_attention, run_causal_mask, run_self_attention
from reference.softmax import run_softmax


def heads_interleaved(d_in, d_out, num_heads, q_proj_weights, k_proj_weights, v_proj_weights, in_features):
    """torch.stack(heads, dim=-1).flatten(-2): feature 0 of every head, then feature 1, ..."""
    heads = [run_causal_attention(d_in, d_out, q_proj_weights[h], k_proj_weights[h], v_proj_weights[h],
                                  in_features) for h in range(num_heads)]
    return torch.stack(heads, dim=-1).flatten(-2)


def no_causal_mask(d_in, d_out, num_heads, q_proj_weights, k_proj_weights, v_proj_weights, in_features):
    heads = [run_self_attention(d_in, d_out, q_proj_weights[h], k_proj_weights[h], v_proj_weights[h],
                                in_features) for h in range(num_heads)]
    return torch.cat(heads, dim=-1)


def scale_by_total_dim(d_in, d_out, num_heads, q_proj_weights, k_proj_weights, v_proj_weights, in_features):
    """Every head scaled by √(num_heads·d_out), the width of the concatenated output, not √d_out."""
    allowed = run_causal_mask(in_features.shape[-2], device=in_features.device)
    heads = []
    for h in range(num_heads):
        q, k, v = (F.linear(in_features, w[h]) for w in (q_proj_weights, k_proj_weights, v_proj_weights))
        scores = (q @ k.transpose(-2, -1) / math.sqrt(num_heads * d_out)).masked_fill(~allowed, float("-inf"))
        heads.append(run_softmax(scores, dim=-1) @ v)
    return torch.cat(heads, dim=-1)
