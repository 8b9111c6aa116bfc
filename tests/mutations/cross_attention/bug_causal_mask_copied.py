"""Started from the decoder's masked self-attention and kept its causal mask: decoder position t may then only
see encoder tokens 0..t, though the whole source sentence is known."""

import math

import torch
import torch.nn.functional as F

DIAGNOSIS = "causal_mask_applied"


def run_cross_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                        decoder_states, encoder_states, encoder_padding_mask):
    d_head = d_model // num_heads
    q = F.linear(decoder_states, q_proj_weight).unflatten(-1, (num_heads, d_head)).transpose(-3, -2)
    k = F.linear(encoder_states, k_proj_weight).unflatten(-1, (num_heads, d_head)).transpose(-3, -2)
    v = F.linear(encoder_states, v_proj_weight).unflatten(-1, (num_heads, d_head)).transpose(-3, -2)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_head)
    causal = torch.tril(torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool))
    allowed = causal & encoder_padding_mask[..., None, None, :]
    weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
    return F.linear((weights @ v).transpose(-3, -2).flatten(-2), o_proj_weight)
