"""Wrong attention over a key-value cache: one function per misconception id of spec/kv_cache_attention.yaml,
each returning (output, new_k_cache, new_v_cache) as the student's code would."""

import math

import torch


def _attend(Q, keys, values, allowed):
    scores = Q @ keys.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    return torch.softmax(scores, dim=-1) @ values


def _extended(k_cache, v_cache, K, V):
    return torch.cat([k_cache, K], dim=-2), torch.cat([v_cache, V], dim=-2)


def mask_not_offset(Q, K, V, k_cache, v_cache):
    """torch.tril(ones(t_new, t_total)): new token i treated as position i, not t_past + i, so it sees only
    the first i + 1 keys of the cache (PyTorch's is_causal aligns the diagonal the same way)."""
    keys, values = _extended(k_cache, v_cache, K, V)
    allowed = torch.ones(Q.shape[-2], keys.shape[-2], dtype=torch.bool, device=Q.device).tril()
    return _attend(Q, keys, values, allowed), keys, values


def no_causal_mask(Q, K, V, k_cache, v_cache):
    """No mask: every new token also sees the new tokens after it (right only when t_new = 1)."""
    keys, values = _extended(k_cache, v_cache, K, V)
    return _attend(Q, keys, values, None), keys, values


def only_new_keys(Q, K, V, k_cache, v_cache):
    """Causal attention among the new tokens only: the cache is extended and returned but never attended to."""
    keys, values = _extended(k_cache, v_cache, K, V)
    allowed = torch.ones(Q.shape[-2], Q.shape[-2], dtype=torch.bool, device=Q.device).tril()
    return _attend(Q, K, V, allowed), keys, values


def cache_order_reversed(Q, K, V, k_cache, v_cache):
    """torch.cat([K, k_cache]): the new keys and values put before the cached ones, with the right mask."""
    keys, values = torch.cat([K, k_cache], dim=-2), torch.cat([V, v_cache], dim=-2)
    t_past, t_new = k_cache.shape[-2], Q.shape[-2]
    allowed = torch.ones(t_new, t_past + t_new, dtype=torch.bool, device=Q.device).tril(diagonal=t_past)
    return _attend(Q, keys, values, allowed), keys, values
