"""Scales the scores by √d_model, the width of all heads together, instead of √d_head."""

import math

import torch
import torch.nn.functional as F

DIAGNOSIS = "scale_by_d_model"


def run_cross_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                        decoder_states, encoder_states, encoder_padding_mask):
    d_head = d_model // num_heads
    q = F.linear(decoder_states, q_proj_weight).unflatten(-1, (num_heads, d_head)).transpose(-3, -2)
    k = F.linear(encoder_states, k_proj_weight).unflatten(-1, (num_heads, d_head)).transpose(-3, -2)
    v = F.linear(encoder_states, v_proj_weight).unflatten(-1, (num_heads, d_head)).transpose(-3, -2)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_model)
    scores = scores.masked_fill(~encoder_padding_mask[..., None, None, :], float("-inf"))
    return F.linear((torch.softmax(scores, dim=-1) @ v).transpose(-3, -2).flatten(-2), o_proj_weight)
