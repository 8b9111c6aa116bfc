"""Wrong causal self-attention (seed 001 §3.5.1 shows masking after the softmax, then renormalising)."""

import math

import torch
import torch.nn.functional as F

from reference.softmax import run_softmax


def _scores(d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features, q_proj_bias, k_proj_bias,
            v_proj_bias):
    q = F.linear(in_features, q_proj_weight, q_proj_bias)
    k = F.linear(in_features, k_proj_weight, k_proj_bias)
    v = F.linear(in_features, v_proj_weight, v_proj_bias)
    seq = in_features.shape[-2]
    allowed = torch.tril(torch.ones(seq, seq, dtype=torch.bool, device=in_features.device))
    return q @ k.transpose(-2, -1) / math.sqrt(d_out), allowed, v


def mask_after_softmax(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                       q_proj_bias=None, k_proj_bias=None, v_proj_bias=None):
    """Softmax first, then zero the future weights, without renormalising the rows."""
    scores, allowed, v = _scores(d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                                 q_proj_bias, k_proj_bias, v_proj_bias)
    return (run_softmax(scores, dim=-1) * allowed) @ v


def masked_with_zero(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                     q_proj_bias=None, k_proj_bias=None, v_proj_bias=None):
    """Future scores set to 0 instead of -inf before the softmax: exp(0) = 1 still gives them weight."""
    scores, allowed, v = _scores(d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                                 q_proj_bias, k_proj_bias, v_proj_bias)
    return run_softmax(scores.masked_fill(~allowed, 0.0), dim=-1) @ v


def no_causal_mask(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                   q_proj_bias=None, k_proj_bias=None, v_proj_bias=None):
    scores, _, v = _scores(d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                           q_proj_bias, k_proj_bias, v_proj_bias)
    return run_softmax(scores, dim=-1) @ v
