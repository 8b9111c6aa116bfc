"""Wrong attention backward passes: the softmax's backward without its rowsum term or with the wrong one,
a missing scale, transposes mixed up, the causal mask forgotten or aligned top-left."""

import math

import torch


def _backward(Q, K, V, dO, is_causal, *, rowsum="dO_O", scale_dK=True, transpose_dV=True, mask="bottom_right",
              swap_dQ_dK=False):
    """(dQ, dK, dV) with these slips: rowsum "dO_O" (right), "none" (dS = P ∘ dP) or "dP" (D = rowsum(dP));
    scale_dK False: dK = dSᵀ Q; transpose_dV False: dV = P dO; mask "none" (P unmasked) or "top_left"."""
    work = torch.promote_types(Q.dtype, torch.float32)
    q, k, v, do = Q.to(work), K.to(work), V.to(work), dO.to(work)
    scale = 1.0 / math.sqrt(q.shape[-1])
    s = q @ k.transpose(-2, -1) * scale
    if is_causal and mask != "none":
        n_q, n_k = s.shape[-2:]
        allowed = torch.ones(n_q, n_k, dtype=torch.bool).tril(diagonal=n_k - n_q if mask == "bottom_right" else 0)
        s = s.masked_fill(~allowed, float("-inf"))
    P = torch.softmax(s, dim=-1)
    dV = (P.transpose(-2, -1) if transpose_dV else P) @ do
    dP = do @ v.transpose(-2, -1)
    D = {"dO_O": (do * (P @ v)).sum(-1, keepdim=True), "dP": dP.sum(-1, keepdim=True), "none": 0.0}[rowsum]
    dS = P * (dP - D)
    dQ = dS @ k * scale
    dK = dS.transpose(-2, -1) @ q * (scale if scale_dK else 1.0)
    if swap_dQ_dK:
        dQ, dK = dK, dQ
    return dQ.to(Q.dtype), dK.to(K.dtype), dV.to(V.dtype)


def no_rowsum_term(Q, K, V, dO, is_causal=False):
    """dS = P ∘ dP: the softmax's backward without subtracting D = rowsum(dO ∘ O)."""
    return _backward(Q, K, V, dO, is_causal, rowsum="none")


def rowsum_of_dP(Q, K, V, dO, is_causal=False):
    """D = rowsum(dP) instead of rowsum(P ∘ dP) = rowsum(dO ∘ O)."""
    return _backward(Q, K, V, dO, is_causal, rowsum="dP")


def dk_missing_scale(Q, K, V, dO, is_causal=False):
    """dK = dSᵀ Q without the 1/√d_k (dQ has it)."""
    return _backward(Q, K, V, dO, is_causal, scale_dK=False)


def dq_dk_swapped(Q, K, V, dO, is_causal=False):
    """dQ and dK returned in each other's place (possible only with as many queries as keys)."""
    return _backward(Q, K, V, dO, is_causal, swap_dQ_dK=True)


def dv_not_transposed(Q, K, V, dO, is_causal=False):
    """dV = P dO instead of Pᵀ dO (possible only with as many queries as keys)."""
    return _backward(Q, K, V, dO, is_causal, transpose_dV=False)


def causal_mask_forgotten(Q, K, V, dO, is_causal=False):
    """P recomputed without the causal mask, as if the forward had had none."""
    return _backward(Q, K, V, dO, is_causal, mask="none")


def causal_top_left(Q, K, V, dO, is_causal=False):
    """Query i masked as position i (torch's is_causal) when there are fewer queries than keys."""
    return _backward(Q, K, V, dO, is_causal, mask="top_left")
