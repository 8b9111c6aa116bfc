"""Reused the self-attention code with `x = decoder_states` for queries, keys and values: the encoder is never
read (and its padding mask has no keys to apply to, so it was dropped)."""

import math

import torch
import torch.nn.functional as F

DIAGNOSIS = "self_attention_instead"


def run_cross_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                        decoder_states, encoder_states, encoder_padding_mask):
    x = decoder_states
    d_head = d_model // num_heads
    q, k, v = (F.linear(x, w).unflatten(-1, (num_heads, d_head)).transpose(-3, -2)
               for w in (q_proj_weight, k_proj_weight, v_proj_weight))
    att = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d_head), dim=-1)
    return F.linear((att @ v).transpose(-3, -2).flatten(-2), o_proj_weight)
