"""Wrong multi-head self-attention by weight splitting (seed 003 never moves the head axis)."""

import math

import torch.nn.functional as F

from reference.misconceptions import _heads


def _qkv(q_proj_weight, k_proj_weight, v_proj_weight, in_features):
    return tuple(F.linear(in_features, w) for w in (q_proj_weight, k_proj_weight, v_proj_weight))


def heads_not_transposed(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                         in_features, o_proj_bias=None):
    y = _heads.no_transpose(*_qkv(q_proj_weight, k_proj_weight, v_proj_weight, in_features), num_heads,
                            math.sqrt(d_model // num_heads))
    return F.linear(y, o_proj_weight, o_proj_bias)


def split_by_reshape(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                     in_features, o_proj_bias=None):
    y = _heads.split_by_reshape(*_qkv(q_proj_weight, k_proj_weight, v_proj_weight, in_features), num_heads,
                                math.sqrt(d_model // num_heads))
    return F.linear(y, o_proj_weight, o_proj_bias)


def merge_without_transpose(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                            in_features, o_proj_bias=None):
    y = _heads.merge_without_transpose(*_qkv(q_proj_weight, k_proj_weight, v_proj_weight, in_features),
                                       num_heads, math.sqrt(d_model // num_heads))
    return F.linear(y, o_proj_weight, o_proj_bias)


def _right_heads(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, in_features, scale):
    projected = _qkv(q_proj_weight, k_proj_weight, v_proj_weight, in_features)
    q, k, v = (_heads.split(x, num_heads) for x in projected)
    return _heads.merge(_heads.causal_attend(q, k, v, scale))


def scale_by_d_model(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                     in_features, o_proj_bias=None):
    y = _right_heads(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                     math.sqrt(d_model))
    return F.linear(y, o_proj_weight, o_proj_bias)


def output_bias_ignored(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                        in_features, o_proj_bias=None):
    y = _right_heads(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                     math.sqrt(d_model // num_heads))
    return F.linear(y, o_proj_weight)
