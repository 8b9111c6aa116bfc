"""Like seed 002's registered buffer, builds the mask once for context_length = 6 (the journey sentence)
and slices [:T, :T]: sequences longer than 6 tokens break."""

import math

import torch
import torch.nn.functional as F

DIAGNOSIS = None
CONTEXT_LENGTH = 6
MASK = torch.triu(torch.ones(CONTEXT_LENGTH, CONTEXT_LENGTH), diagonal=1)


def run_causal_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                         q_proj_bias=None, k_proj_bias=None, v_proj_bias=None):
    queries = F.linear(in_features, q_proj_weight, q_proj_bias)
    keys = F.linear(in_features, k_proj_weight, k_proj_bias)
    values = F.linear(in_features, v_proj_weight, v_proj_bias)
    num_tokens = in_features.shape[-2]
    attn_scores = queries @ keys.transpose(-2, -1)
    attn_scores = attn_scores.masked_fill(MASK.bool()[:num_tokens, :num_tokens], -torch.inf)
    return torch.softmax(attn_scores / math.sqrt(d_out), dim=-1) @ values
