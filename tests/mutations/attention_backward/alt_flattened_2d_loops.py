"""Flattens the leading dims into one batch and works on plain 2-D matrices with .T, one batch entry at a
time, then puts the leading dims back."""

import math

import torch


def run_attention_backward(Q, K, V, dO, is_causal=False):
    lead = Q.shape[:-2]
    n_q, d_k = Q.shape[-2:]
    n_k, d_v = V.shape[-2:]
    work = torch.float64 if Q.dtype == torch.float64 else torch.float32
    Qs, Ks = Q.reshape(-1, n_q, d_k).to(work), K.reshape(-1, n_k, d_k).to(work)
    Vs, dOs = V.reshape(-1, n_k, d_v).to(work), dO.reshape(-1, n_q, d_v).to(work)
    mask = torch.ones(n_q, n_k, dtype=torch.bool).tril(n_k - n_q) if is_causal else None
    dQ, dK, dV = [], [], []
    for q, k, v, do in zip(Qs, Ks, Vs, dOs):
        s = q @ k.T / math.sqrt(d_k)
        if mask is not None:
            s[~mask] = -math.inf
        p = torch.exp(s - s.max(dim=1, keepdim=True).values)
        p = p / p.sum(dim=1, keepdim=True)
        o = p @ v
        ds = p * (do @ v.T - (do * o).sum(dim=1, keepdim=True))
        dQ.append(ds @ k / math.sqrt(d_k))
        dK.append(ds.T @ q / math.sqrt(d_k))
        dV.append(p.T @ do)
    return (torch.stack(dQ).reshape(*lead, n_q, d_k).to(Q.dtype), torch.stack(dK).reshape(*lead, n_k, d_k).to(K.dtype),
            torch.stack(dV).reshape(*lead, n_k, d_v).to(V.dtype))
