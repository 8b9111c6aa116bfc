"""Wrong self-attention with trainable weights (seed 001 §3.4)."""

import math

import torch.nn.functional as F

from reference.softmax import run_softmax


def _project(in_features, q_proj_weight, k_proj_weight, v_proj_weight, q_proj_bias, k_proj_bias, v_proj_bias):
    return (F.linear(in_features, q_proj_weight, q_proj_bias),
            F.linear(in_features, k_proj_weight, k_proj_bias),
            F.linear(in_features, v_proj_weight, v_proj_bias))


def _attend(q, k, v, scale):
    return run_softmax(q @ k.transpose(-2, -1) / scale, dim=-1) @ v


def scale_by_d_in(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                  q_proj_bias=None, k_proj_bias=None, v_proj_bias=None):
    q, k, v = _project(in_features, q_proj_weight, k_proj_weight, v_proj_weight, q_proj_bias, k_proj_bias,
                       v_proj_bias)
    return _attend(q, k, v, math.sqrt(d_in))


def no_scaling(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
               q_proj_bias=None, k_proj_bias=None, v_proj_bias=None):
    q, k, v = _project(in_features, q_proj_weight, k_proj_weight, v_proj_weight, q_proj_bias, k_proj_bias,
                       v_proj_bias)
    return _attend(q, k, v, 1.0)


def scale_without_sqrt(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                       q_proj_bias=None, k_proj_bias=None, v_proj_bias=None):
    q, k, v = _project(in_features, q_proj_weight, k_proj_weight, v_proj_weight, q_proj_bias, k_proj_bias,
                       v_proj_bias)
    return _attend(q, k, v, float(d_out))


def biases_ignored(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                   q_proj_bias=None, k_proj_bias=None, v_proj_bias=None):
    q, k, v = _project(in_features, q_proj_weight, k_proj_weight, v_proj_weight, None, None, None)
    return _attend(q, k, v, math.sqrt(d_out))


def queries_keys_swapped(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                         q_proj_bias=None, k_proj_bias=None, v_proj_bias=None):
    """scores = keys @ queriesᵀ: row i holds key i against every query."""
    q, k, v = _project(in_features, q_proj_weight, k_proj_weight, v_proj_weight, q_proj_bias, k_proj_bias,
                       v_proj_bias)
    return _attend(k, q, v, math.sqrt(d_out))
