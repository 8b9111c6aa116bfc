"""Wrong multi-head self-attention with RoPE: what gets rotated, with which d_k, at which positions."""

import math

import torch
import torch.nn.functional as F

from reference.misconceptions import _heads
from reference.misconceptions._rotary import rotary


def _mha(d_model, num_heads, theta, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight, in_features,
         token_positions, *, rotate_values=False, before_split=False, rope_d_k=None, **knobs):
    d_k = d_model // num_heads
    if token_positions is None:
        token_positions = torch.arange(in_features.shape[-2], device=in_features.device)
    q, k, v = (F.linear(in_features, w) for w in (q_proj_weight, k_proj_weight, v_proj_weight))
    if before_split:  # one rotation over all d_model features, then split
        q, k = (rotary(x, token_positions, theta, d_model, **knobs) for x in (q, k))
    q, k, v = (_heads.split(x, num_heads) for x in (q, k, v))
    if not before_split:
        pos = token_positions.unsqueeze(-2)  # (..., 1, seq): broadcast over heads
        q, k = (rotary(x, pos, theta, rope_d_k or d_k, **knobs) for x in (q, k))
        if rotate_values:
            v = rotary(v, pos, theta, rope_d_k or d_k, **knobs)
    y = _heads.causal_attend(q, k, v, math.sqrt(d_k))
    return F.linear(_heads.merge(y), o_proj_weight)


def rope_on_values(d_model, num_heads, max_seq_len, theta, q_proj_weight, k_proj_weight, v_proj_weight,
                   o_proj_weight, in_features, token_positions=None):
    return _mha(d_model, num_heads, theta, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                in_features, token_positions, rotate_values=True)


def rope_before_head_split(d_model, num_heads, max_seq_len, theta, q_proj_weight, k_proj_weight,
                           v_proj_weight, o_proj_weight, in_features, token_positions=None):
    return _mha(d_model, num_heads, theta, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                in_features, token_positions, before_split=True)


def rope_dim_d_model(d_model, num_heads, max_seq_len, theta, q_proj_weight, k_proj_weight, v_proj_weight,
                     o_proj_weight, in_features, token_positions=None):
    """Per-head RoPE with frequencies theta^(-2i/d_model) instead of theta^(-2i/d_k)."""
    return _mha(d_model, num_heads, theta, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                in_features, token_positions, rope_d_k=d_model)


def ignores_positions(d_model, num_heads, max_seq_len, theta, q_proj_weight, k_proj_weight, v_proj_weight,
                      o_proj_weight, in_features, token_positions=None):
    return _mha(d_model, num_heads, theta, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                in_features, None)


def rotate_half(d_model, num_heads, max_seq_len, theta, q_proj_weight, k_proj_weight, v_proj_weight,
                o_proj_weight, in_features, token_positions=None):
    return _mha(d_model, num_heads, theta, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                in_features, token_positions, half_split=True)
