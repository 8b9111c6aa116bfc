"""Copied multi-head attention, swapped in the encoder for keys and values, and never used the padding mask:
every query spreads weight over the padding tokens too."""

import math

import torch

DIAGNOSIS = "padding_ignored"


def run_cross_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                        decoder_states, encoder_states, encoder_padding_mask):
    d_head = d_model // num_heads
    q = (decoder_states @ q_proj_weight.T).unflatten(-1, (num_heads, d_head)).transpose(-3, -2)
    k = (encoder_states @ k_proj_weight.T).unflatten(-1, (num_heads, d_head)).transpose(-3, -2)
    v = (encoder_states @ v_proj_weight.T).unflatten(-1, (num_heads, d_head)).transpose(-3, -2)
    att = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d_head), dim=-1)
    y = (att @ v).transpose(-3, -2).flatten(-2)
    return y @ o_proj_weight.T
