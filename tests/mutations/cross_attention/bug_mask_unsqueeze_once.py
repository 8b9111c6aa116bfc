"""encoder_padding_mask.unsqueeze(1) for the head axis and nothing for the query axis: (B, 1, T_enc) is
broadcast against (B, heads, T_dec, T_enc) from the right, so the batch axis meets the heads. With as many
sequences as heads it runs silently, giving head h the padding of sequence h; otherwise it fails to broadcast."""

import math

import torch
import torch.nn.functional as F

DIAGNOSIS = "mask_on_wrong_axis"


def run_cross_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                        decoder_states, encoder_states, encoder_padding_mask):
    d_head = d_model // num_heads
    q = F.linear(decoder_states, q_proj_weight).unflatten(-1, (num_heads, d_head)).transpose(-3, -2)
    k = F.linear(encoder_states, k_proj_weight).unflatten(-1, (num_heads, d_head)).transpose(-3, -2)
    v = F.linear(encoder_states, v_proj_weight).unflatten(-1, (num_heads, d_head)).transpose(-3, -2)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_head)
    mask = encoder_padding_mask.unsqueeze(1)  # (B, 1, T_enc)
    scores = scores.masked_fill(mask == 0, float("-inf"))
    return F.linear((torch.softmax(scores, dim=-1) @ v).transpose(-3, -2).flatten(-2), o_proj_weight)
