"""Wrong nanoGPT CausalSelfAttention (seed 000): fused-projection split order and head handling."""

import math

import torch.nn.functional as F

from reference.misconceptions import _heads


def _finish(q, k, v, n_head, c_proj_weight, c_proj_bias, scale):
    q, k, v = (_heads.split(x, n_head) for x in (q, k, v))
    return F.linear(_heads.merge(_heads.causal_attend(q, k, v, scale)), c_proj_weight, c_proj_bias)


def qkv_order(n_embd, n_head, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, in_features):
    """k, q, v = qkv.split(n_embd, dim=-1): the first third taken as keys, the second as queries."""
    k, q, v = F.linear(in_features, c_attn_weight, c_attn_bias).split(n_embd, dim=-1)
    return _finish(q, k, v, n_head, c_proj_weight, c_proj_bias, math.sqrt(n_embd // n_head))


def qkv_split_per_head(n_embd, n_head, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, in_features):
    """qkv viewed as (..., seq, n_head, 3·hs) and chunked into q, k, v inside every head."""
    qkv = F.linear(in_features, c_attn_weight, c_attn_bias).unflatten(-1, (n_head, 3 * (n_embd // n_head)))
    q, k, v = (x.flatten(-2) for x in qkv.chunk(3, dim=-1))
    return _finish(q, k, v, n_head, c_proj_weight, c_proj_bias, math.sqrt(n_embd // n_head))


def heads_not_transposed(n_embd, n_head, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, in_features):
    q, k, v = F.linear(in_features, c_attn_weight, c_attn_bias).split(n_embd, dim=-1)
    y = _heads.no_transpose(q, k, v, n_head, math.sqrt(n_embd // n_head))
    return F.linear(y, c_proj_weight, c_proj_bias)


def scale_by_n_embd(n_embd, n_head, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, in_features):
    q, k, v = F.linear(in_features, c_attn_weight, c_attn_bias).split(n_embd, dim=-1)
    return _finish(q, k, v, n_head, c_proj_weight, c_proj_bias, math.sqrt(n_embd))
