"""Computes in float64 and casts the result back to the input's dtype; the padding as a log-mask bias."""

import math

import torch


def run_cross_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                        decoder_states, encoder_states, encoder_padding_mask):
    x, mem = decoder_states.double(), encoder_states.double()
    wq, wk, wv, wo = (w.double() for w in (q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight))
    B = x.shape[:-2]
    T, S, H = x.shape[-2], mem.shape[-2], num_heads
    q = (x @ wq.T).reshape(*B, T, H, -1).movedim(-2, -3)
    k = (mem @ wk.T).reshape(*B, S, H, -1).movedim(-2, -3)
    v = (mem @ wv.T).reshape(*B, S, H, -1).movedim(-2, -3)
    log_mask = torch.log(encoder_padding_mask.double())[..., None, None, :]  # 0 for real, -inf for padding
    att = torch.softmax(q @ k.mT / math.sqrt(q.shape[-1]) + log_mask, dim=-1)
    y = (att @ v).movedim(-3, -2).reshape(*B, T, d_model) @ wo.T
    return y.to(decoder_states.dtype)
