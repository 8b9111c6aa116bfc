"""Leaves out the mask, reasoning that a cache only ever holds the past: right for a single decoding step,
but a prompt or a chunk of several new tokens lets each one see the new tokens after it."""

import math

import torch

DIAGNOSIS = "no_causal_mask"


def run_kv_cache_attention(Q, K, V, k_cache, v_cache):
    k = torch.cat([k_cache, K], dim=-2)
    v = torch.cat([v_cache, V], dim=-2)
    weights = torch.softmax(Q @ k.transpose(-2, -1) / math.sqrt(Q.size(-1)), dim=-1)
    return weights @ v, k, v
