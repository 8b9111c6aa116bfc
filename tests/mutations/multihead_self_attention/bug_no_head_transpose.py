"""Seed 003's MultiHeadAttention: Q, K, V are viewed as (..., seq, heads, d_k) but the head axis is never
moved before seq, so Q·Kᵀ compares the heads of ONE token (and the causal mask, sized from the
second-to-last dim, runs over heads) instead of comparing tokens."""

import math

import torch
import torch.nn.functional as F

DIAGNOSIS = "heads_not_transposed"


def run_multihead_self_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight,
                                 o_proj_weight, in_features, o_proj_bias=None):
    head_dim = d_model // num_heads
    *batch, seq_len, _ = in_features.shape
    Q = F.linear(in_features, q_proj_weight).view(*batch, seq_len, num_heads, head_dim)
    K = F.linear(in_features, k_proj_weight).view(*batch, seq_len, num_heads, head_dim)
    V = F.linear(in_features, v_proj_weight).view(*batch, seq_len, num_heads, head_dim)
    attention_value = torch.matmul(Q, K.transpose(-1, -2)) / math.sqrt(head_dim)
    T = attention_value.shape[-1]
    attention_value = attention_value.masked_fill(torch.tril(torch.ones(T, T)) == 0, float("-inf"))
    output = torch.matmul(torch.softmax(attention_value, dim=-1), V)
    output = output.reshape(*batch, seq_len, d_model)
    return F.linear(output, o_proj_weight, o_proj_bias)
