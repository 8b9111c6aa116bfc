"""A loop-index slip: every head is built from head 0's weights (q_proj_weights[0], ...), so all heads
return the same thing."""

import torch

from reference.attention import run_causal_attention

DIAGNOSIS = None


def run_multihead_attention_wrapper(d_in, d_out, num_heads, q_proj_weights, k_proj_weights, v_proj_weights,
                                    in_features):
    heads = []
    for _ in range(num_heads):
        head = run_causal_attention(d_in, d_out, q_proj_weights[0], k_proj_weights[0], v_proj_weights[0],
                                    in_features)
        heads.append(head)
    return torch.cat(heads, dim=-1)
