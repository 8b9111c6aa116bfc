"""Computes in float64 with einsum and fills preallocated caches by slices (as a fixed-size cache buffer
would), casting the output back to the input dtype."""

import torch


def run_kv_cache_attention(Q, K, V, k_cache, v_cache):
    *lead, t_past, d = k_cache.shape
    t_new = Q.shape[-2]
    new_k = torch.empty(*lead, t_past + t_new, d, dtype=K.dtype, device=K.device)
    new_v = torch.empty(*lead, t_past + t_new, V.shape[-1], dtype=V.dtype, device=V.device)
    new_k[..., :t_past, :], new_k[..., t_past:, :] = k_cache, K
    new_v[..., :t_past, :], new_v[..., t_past:, :] = v_cache, V
    scores = torch.einsum("...qd,...kd->...qk", Q.double(), new_k.double()) / d ** 0.5
    mask = torch.ones(t_new, t_past + t_new, dtype=torch.bool, device=Q.device).tril(t_past)
    weights = scores.masked_fill(~mask, -torch.inf).softmax(dim=-1)
    out = torch.einsum("...qk,...kd->...qd", weights, new_v.double())
    return out.to(Q.dtype), new_k, new_v
