"""Hands the work to torch.nn.MultiheadAttention with key_padding_mask = ~mask, which the exercise forbids."""

import torch
from torch import nn

DIAGNOSIS = None


def run_cross_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                        decoder_states, encoder_states, encoder_padding_mask):
    mha = nn.MultiheadAttention(d_model, num_heads, bias=False, batch_first=True,
                                dtype=decoder_states.dtype)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([q_proj_weight, k_proj_weight, v_proj_weight]))
        mha.out_proj.weight.copy_(o_proj_weight)
    out, _ = mha(decoder_states, encoder_states, encoder_states, key_padding_mask=~encoder_padding_mask,
                 need_weights=False)
    return out
