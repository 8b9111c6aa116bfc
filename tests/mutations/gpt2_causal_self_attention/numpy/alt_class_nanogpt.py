"""nanoGPT's CausalSelfAttention ported line by line to NumPy: a class holding c_attn and c_proj, whose forward
unpacks B, T, C (the leading axes are flattened into B first, so a single sequence or two batch axes work too),
splits q, k, v, views them as (B, nh, T, hs), masks with a lower-triangular `bias` buffer and reassembles the
heads with transpose + reshape."""

import math

import numpy as np


class CausalSelfAttention:
    def __init__(self, n_embd, n_head, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias):
        self.n_embd, self.n_head = n_embd, n_head
        self.c_attn = (c_attn_weight, c_attn_bias)
        self.c_proj = (c_proj_weight, c_proj_bias)

    @staticmethod
    def linear(x, layer):
        weight, bias = layer
        return x @ weight.T + bias

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = np.split(self.linear(x, self.c_attn), [self.n_embd, 2 * self.n_embd], axis=2)
        hs = C // self.n_head
        k = k.reshape(B, T, self.n_head, hs).transpose(0, 2, 1, 3)  # (B, nh, T, hs)
        q = q.reshape(B, T, self.n_head, hs).transpose(0, 2, 1, 3)  # (B, nh, T, hs)
        v = v.reshape(B, T, self.n_head, hs).transpose(0, 2, 1, 3)  # (B, nh, T, hs)
        att = (q @ k.transpose(0, 1, 3, 2)) * (1.0 / math.sqrt(hs))
        bias = np.tril(np.ones((T, T))).reshape(1, 1, T, T)
        att = np.where(bias == 0, -np.inf, att)
        att = np.exp(att - att.max(axis=-1, keepdims=True))
        att = att / att.sum(axis=-1, keepdims=True)
        y = att @ v  # (B, nh, T, hs)
        y = y.transpose(0, 2, 1, 3).reshape(B, T, C)
        return self.linear(y, self.c_proj)


def run_gpt2_causal_self_attention(n_embd, n_head, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias,
                                   in_features):
    block = CausalSelfAttention(n_embd, n_head, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias)
    x = in_features.reshape(-1, *in_features.shape[-2:])  # (B, T, C)
    return block.forward(x).reshape(in_features.shape).astype(in_features.dtype)
