"""A decoder block's cross-attention as an nn.Module with nn.Linear layers loaded with the given weights,
the padding mask turned into an additive bias of 0 / -inf."""

import math

import torch
from torch import nn


class CrossAttention(nn.Module):
    def __init__(self, d_model, num_heads, dtype):
        super().__init__()
        self.num_heads, self.d_head = num_heads, d_model // num_heads
        self.q_proj = nn.Linear(d_model, d_model, bias=False, dtype=dtype)
        self.k_proj = nn.Linear(d_model, d_model, bias=False, dtype=dtype)
        self.v_proj = nn.Linear(d_model, d_model, bias=False, dtype=dtype)
        self.o_proj = nn.Linear(d_model, d_model, bias=False, dtype=dtype)

    def shape(self, x):
        return x.view(*x.shape[:-1], self.num_heads, self.d_head).transpose(-3, -2)

    def forward(self, x, memory, memory_mask):
        q, k, v = self.shape(self.q_proj(x)), self.shape(self.k_proj(memory)), self.shape(self.v_proj(memory))
        bias = torch.zeros(memory_mask.shape, dtype=q.dtype).masked_fill(~memory_mask, float("-inf"))
        att = q @ k.transpose(-2, -1) / math.sqrt(self.d_head) + bias[..., None, None, :]
        y = att.softmax(dim=-1) @ v
        y = y.transpose(-3, -2).contiguous()
        return self.o_proj(y.view(*y.shape[:-2], -1))


def run_cross_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                        decoder_states, encoder_states, encoder_padding_mask):
    module = CrossAttention(d_model, num_heads, decoder_states.dtype)
    module.load_state_dict({"q_proj.weight": q_proj_weight, "k_proj.weight": k_proj_weight,
                            "v_proj.weight": v_proj_weight, "o_proj.weight": o_proj_weight})
    return module(decoder_states, encoder_states, encoder_padding_mask)
