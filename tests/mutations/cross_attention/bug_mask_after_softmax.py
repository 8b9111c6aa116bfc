"""Zeroes the padding weights after the softmax (weights * mask) and does not renormalise: the rows of
sequences with padding sum to less than 1, and the padding scores still shaped the real weights."""

import math

import torch
import torch.nn.functional as F

DIAGNOSIS = "padding_zeroed_after_softmax"


def run_cross_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                        decoder_states, encoder_states, encoder_padding_mask):
    d_head = d_model // num_heads
    q = F.linear(decoder_states, q_proj_weight).unflatten(-1, (num_heads, d_head)).transpose(-3, -2)
    k = F.linear(encoder_states, k_proj_weight).unflatten(-1, (num_heads, d_head)).transpose(-3, -2)
    v = F.linear(encoder_states, v_proj_weight).unflatten(-1, (num_heads, d_head)).transpose(-3, -2)
    weights = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d_head), dim=-1)
    weights = weights * encoder_padding_mask[..., None, None, :]
    return F.linear((weights @ v).transpose(-3, -2).flatten(-2), o_proj_weight)
