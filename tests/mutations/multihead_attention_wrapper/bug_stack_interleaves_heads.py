"""Joins the heads with torch.stack(heads, dim=-1).flatten(-2): the shape is right but the features are
interleaved (feature 0 of every head, then feature 1, ...) instead of head 0's block, then head 1's."""

import torch

from reference.attention import run_causal_attention

DIAGNOSIS = "heads_interleaved"


def run_multihead_attention_wrapper(d_in, d_out, num_heads, q_proj_weights, k_proj_weights, v_proj_weights,
                                    in_features):
    heads = [run_causal_attention(d_in, d_out, q_proj_weights[h], k_proj_weights[h], v_proj_weights[h],
                                  in_features) for h in range(num_heads)]
    return torch.stack(heads, dim=-1).flatten(-2)
