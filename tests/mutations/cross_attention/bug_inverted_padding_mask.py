"""masked_fill(mask, -inf) as with a causal mask written True-where-hidden: here True marks the real tokens,
so only the padding is attended to, and a sequence without padding gets NaN."""

import math

import torch
import torch.nn.functional as F

DIAGNOSIS = "padding_inverted"


def run_cross_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                        decoder_states, encoder_states, encoder_padding_mask):
    *batch, t_dec, _ = decoder_states.shape
    t_enc = encoder_states.shape[-2]
    d_head = d_model // num_heads
    q = F.linear(decoder_states, q_proj_weight).view(*batch, t_dec, num_heads, d_head).transpose(-3, -2)
    k = F.linear(encoder_states, k_proj_weight).view(*batch, t_enc, num_heads, d_head).transpose(-3, -2)
    v = F.linear(encoder_states, v_proj_weight).view(*batch, t_enc, num_heads, d_head).transpose(-3, -2)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_head)
    scores = scores.masked_fill(encoder_padding_mask[..., None, None, :], float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
    return F.linear(out.transpose(-3, -2).reshape(*batch, t_dec, d_model), o_proj_weight)
