"""A CrossAttention object holding W_q, W_k, W_v, W_o, called with the decoder states, the encoder states and the
padding mask; the mask becomes an additive bias, 0 for real tokens and -inf for padding, shaped
(..., 1, 1, T_enc) so that it broadcasts over heads and decoder positions."""

import math

import numpy as np


class CrossAttention:
    def __init__(self, d_model, num_heads, W_q, W_k, W_v, W_o):
        self.num_heads, self.d_head = num_heads, d_model // num_heads
        self.W_q, self.W_k, self.W_v, self.W_o = W_q, W_k, W_v, W_o

    def heads(self, x):
        x = x.reshape(*x.shape[:-1], self.num_heads, self.d_head)
        return np.swapaxes(x, -2, -3)  # (..., heads, T, d_head)

    def __call__(self, decoder_states, encoder_states, padding_mask):
        q = self.heads(decoder_states @ self.W_q.T)
        k = self.heads(encoder_states @ self.W_k.T)
        v = self.heads(encoder_states @ self.W_v.T)
        bias = np.where(padding_mask, 0.0, -np.inf)[..., None, None, :].astype(q.dtype)
        scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(self.d_head) + bias
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        context = (weights / weights.sum(axis=-1, keepdims=True)) @ v  # (..., heads, T_dec, d_head)
        context = np.swapaxes(context, -2, -3)
        return context.reshape(*context.shape[:-2], -1) @ self.W_o.T


def run_cross_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                        decoder_states, encoder_states, encoder_padding_mask):
    layer = CrossAttention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight)
    return layer(decoder_states, encoder_states, encoder_padding_mask).astype(decoder_states.dtype)
