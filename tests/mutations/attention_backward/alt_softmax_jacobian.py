"""The textbook route: the softmax's Jacobian J = diag(p) − p pᵀ for every query row, built explicitly and
applied to dP with einsum (a (keys, keys) matrix per query: fine at these sizes)."""

import math

import torch


def run_attention_backward(Q, K, V, dO, is_causal=False):
    work = torch.promote_types(Q.dtype, torch.float32)
    q, k, v, do = (t.to(work) for t in (Q, K, V, dO))
    scale = q.shape[-1] ** -0.5
    s = torch.einsum("...id,...jd->...ij", q, k) * scale
    if is_causal:
        i = torch.arange(s.shape[-2]).unsqueeze(-1) + (s.shape[-1] - s.shape[-2])
        j = torch.arange(s.shape[-1]).unsqueeze(0)
        s = torch.where(j <= i, s, torch.tensor(-math.inf, dtype=work))
    p = torch.softmax(s, dim=-1)
    jacobian = torch.diag_embed(p) - torch.einsum("...ij,...ik->...ijk", p, p)  # (..., queries, keys, keys)
    dp = torch.einsum("...id,...jd->...ij", do, v)
    ds = torch.einsum("...ijk,...ik->...ij", jacobian, dp)  # J is symmetric
    dq = torch.einsum("...ij,...jd->...id", ds, k) * scale
    dk = torch.einsum("...ij,...id->...jd", ds, q) * scale
    dv = torch.einsum("...ij,...id->...jd", p, do)
    return dq.to(Q.dtype), dk.to(K.dtype), dv.to(V.dtype)
