"""Shared pieces of the multi-head misconceptions: causal attention over whatever the last two axes are."""

import torch

from reference.softmax import run_softmax


def causal_attend(q, k, v, scale: float):
    """softmax(q kᵀ / scale) v with a causal mask over the LAST TWO axes, whatever they hold."""
    n = q.shape[-2]
    allowed = torch.tril(torch.ones(n, n, dtype=torch.bool, device=q.device))
    scores = (q @ k.transpose(-2, -1) / scale).masked_fill(~allowed, float("-inf"))
    return run_softmax(scores, dim=-1) @ v


def split(x, num_heads):
    """(..., seq, d_model) -> (..., heads, seq, d_k), the right way."""
    return x.unflatten(-1, (num_heads, x.shape[-1] // num_heads)).transpose(-3, -2)


def merge(x):
    """(..., heads, seq, d_k) -> (..., seq, heads·d_k), the right way."""
    return x.transpose(-3, -2).flatten(-2)


def no_transpose(q, k, v, num_heads, scale):
    """Seed 003: heads split with view but never moved before seq, so attention mixes the heads of one
    token (the causal mask, sized from q.shape[-2], is num_heads × num_heads)."""
    q, k, v = (x.unflatten(-1, (num_heads, -1)) for x in (q, k, v))  # (..., seq, heads, d_k)
    return causal_attend(q, k, v, scale).flatten(-2)


def split_by_reshape(q, k, v, num_heads, scale):
    """(..., seq, d_model) reshaped straight to (..., heads, seq, d_k) and merged back the same way."""
    *batch, seq, d_model = q.shape
    q, k, v = (x.reshape(*batch, num_heads, seq, d_model // num_heads) for x in (q, k, v))
    return causal_attend(q, k, v, scale).reshape(*batch, seq, d_model)


def merge_without_transpose(q, k, v, num_heads, scale):
    """Heads split correctly but merged with a plain reshape of (..., heads, seq, d_k)."""
    y = causal_attend(split(q, num_heads), split(k, num_heads), split(v, num_heads), scale)
    *batch, heads, seq, d_k = y.shape
    return y.reshape(*batch, seq, heads * d_k)
