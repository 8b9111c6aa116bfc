"""Everything in float64 and cast back at the end; D as rowsum(P ∘ dP) rather than rowsum(dO ∘ O), the
same number; the mask applied with finfo.min instead of -inf."""

import math

import torch


def run_attention_backward(Q, K, V, dO, is_causal=False):
    q, k, v, do = Q.double(), K.double(), V.double(), dO.double()
    sqrt_d = math.sqrt(Q.size(-1))
    scores = q @ k.transpose(-1, -2) / sqrt_d
    if is_causal:
        n_q, n_k = scores.shape[-2], scores.shape[-1]
        future = torch.triu(torch.ones(n_q, n_k, dtype=torch.bool), diagonal=n_k - n_q + 1)
        scores = scores.masked_fill(future, torch.finfo(torch.float64).min)
    weights = torch.softmax(scores, dim=-1)
    grad_v = weights.transpose(-1, -2) @ do
    grad_weights = do @ v.transpose(-1, -2)
    grad_scores = weights * (grad_weights - (weights * grad_weights).sum(dim=-1, keepdim=True))
    grad_q = grad_scores @ k / sqrt_d
    grad_k = grad_scores.transpose(-1, -2) @ q / sqrt_d
    return grad_q.to(Q.dtype), grad_k.to(K.dtype), grad_v.to(V.dtype)
