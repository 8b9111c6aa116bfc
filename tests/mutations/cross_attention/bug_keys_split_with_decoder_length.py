"""Splits every projection into heads with the decoder's length (written for self-attention, where there is
only one T): the keys' .view fails whenever T_enc differs from T_dec."""

import math

import torch
import torch.nn.functional as F

DIAGNOSIS = None


def run_cross_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                        decoder_states, encoder_states, encoder_padding_mask):
    *batch, T, C = decoder_states.shape
    hs = C // num_heads
    q = F.linear(decoder_states, q_proj_weight).view(*batch, T, num_heads, hs).transpose(-3, -2)
    k = F.linear(encoder_states, k_proj_weight).view(*batch, T, num_heads, hs).transpose(-3, -2)
    v = F.linear(encoder_states, v_proj_weight).view(*batch, T, num_heads, hs).transpose(-3, -2)
    att = q @ k.transpose(-2, -1) * (1.0 / math.sqrt(hs))
    att = att.masked_fill(~encoder_padding_mask[..., None, None, :], float("-inf"))
    y = torch.softmax(att, dim=-1) @ v
    return F.linear(y.transpose(-3, -2).contiguous().view(*batch, T, C), o_proj_weight)
