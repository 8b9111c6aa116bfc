"""Wrong FlashAttention-2 backward kernels, computed whole in torch (none of these slips depends on the tiles):
P recomputed from L with the scores unscaled or in base 2, the rowsum term D left out, a missing 1/√d, the
causal mask aligned top-left."""

import math

import torch


def _backward(Q, K, V, O, L, dO, is_causal, *, rowsum=True, scale_dQ=True, scale_dK=True, scores_scaled=True,
              base_two=False, top_left=False):
    """(dQ, dK, dV) from P = exp(S − L) with these slips: rowsum False: dS = P ∘ dP; scale_dQ/scale_dK False:
    that gradient without 1/√d; scores_scaled False: P = exp(Q Kᵀ − L); base_two: P = exp2(S · log2 e − L);
    top_left: the causal mask with query i at position i."""
    work = torch.promote_types(Q.dtype, torch.float32)
    q, k, v, o, lse, do = (t.to(work) for t in (Q, K, V, O, L, dO))
    scale = 1.0 / math.sqrt(q.shape[-1])
    s = q @ k.transpose(-2, -1) * (scale if scores_scaled else 1.0)
    P = torch.exp2(s * math.log2(math.e) - lse[..., None]) if base_two else torch.exp(s - lse[..., None])
    if is_causal:
        n_q, n_k = s.shape[-2:]
        allowed = torch.ones(n_q, n_k, dtype=torch.bool).tril(diagonal=0 if top_left else n_k - n_q)
        P = P.masked_fill(~allowed, 0.0)
    dV = P.transpose(-2, -1) @ do
    dP = do @ v.transpose(-2, -1)
    dS = P * (dP - (do * o).sum(-1, keepdim=True)) if rowsum else P * dP
    dQ = dS @ k * (scale if scale_dQ else 1.0)
    dK = dS.transpose(-2, -1) @ q * (scale if scale_dK else 1.0)
    return dQ.to(Q.dtype), dK.to(K.dtype), dV.to(V.dtype)


def no_rowsum_term(Q, K, V, O, L, dO, is_causal=False):
    """dS = P ∘ dP: the softmax's backward without subtracting D = rowsum(dO ∘ O)."""
    return _backward(Q, K, V, O, L, dO, is_causal, rowsum=False)


def dk_missing_scale(Q, K, V, O, L, dO, is_causal=False):
    """dK = dSᵀ Q without the 1/√d (dQ has it)."""
    return _backward(Q, K, V, O, L, dO, is_causal, scale_dK=False)


def dq_missing_scale(Q, K, V, O, L, dO, is_causal=False):
    """dQ = dS K without the 1/√d (dK has it)."""
    return _backward(Q, K, V, O, L, dO, is_causal, scale_dQ=False)


def unscaled_scores(Q, K, V, O, L, dO, is_causal=False):
    """P = exp(Q Kᵀ − L): the scores recomputed without 1/√d, against the L of the scaled ones."""
    return _backward(Q, K, V, O, L, dO, is_causal, scores_scaled=False)


def lse_base_two(Q, K, V, O, L, dO, is_causal=False):
    """P = exp2(S · log2 e − L): the scores moved to base 2 for exp2, the natural L not."""
    return _backward(Q, K, V, O, L, dO, is_causal, base_two=True)


def causal_top_left(Q, K, V, O, L, dO, is_causal=False):
    """Query i masked as position i although there are fewer queries than keys."""
    return _backward(Q, K, V, O, L, dO, is_causal, top_left=True)
