"""Computes the right O and L the textbook way, with the whole (queries, keys) score matrix: block_q and
block_k are ignored. Every value is right; only the long case's memory budget sees the 576 MB matrix."""

import math

import torch

DIAGNOSIS = None


def run_flash_attention(Q, K, V, is_causal=False, block_q=16, block_k=16):
    work = torch.promote_types(Q.dtype, torch.float32)
    scores = Q.to(work) @ K.to(work).transpose(-2, -1) / math.sqrt(Q.shape[-1])  # (..., queries, keys)
    if is_causal:
        n_q, n_k = scores.shape[-2:]
        allowed = torch.ones(n_q, n_k, dtype=torch.bool).tril(diagonal=n_k - n_q)
        scores = scores.masked_fill(~allowed, float("-inf"))
    L = torch.logsumexp(scores, dim=-1)
    O = torch.exp(scores - L[..., None]) @ V.to(work)
    return O.to(Q.dtype), L.float()
