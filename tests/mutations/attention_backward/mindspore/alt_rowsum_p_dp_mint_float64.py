"""mint's torch-like API in float64, cast back per gradient: `mint.matmul`, `mint.transpose`, the softmax by
`mint.exp` of the scores minus their row max, a causal mask by comparing `ops.arange` positions (query i at
keys − queries + i), and D = rowsum(P ∘ dP) taken from P and dP rather than from dO and O. Correct:
rowsum(P ∘ dP) = rowsum(dO ∘ P V) = rowsum(dO ∘ O), so dS = P ∘ (dP − D) is the same, and float64 inside only
adds precision."""

import math

import mindspore
from mindspore import mint, ops

F64 = mindspore.float64


def run_attention_backward(Q, K, V, dO, is_causal=False):
    q, k, v, do = Q.astype(F64), K.astype(F64), V.astype(F64), dO.astype(F64)
    scale = 1.0 / math.sqrt(q.shape[-1])
    S = mint.matmul(q, mint.transpose(k, -2, -1)) * scale  # (..., queries, keys)
    if is_causal:
        n_q, n_k = S.shape[-2:]
        future = ops.arange(n_k).reshape(1, -1) > ops.arange(n_q).reshape(-1, 1) + (n_k - n_q)
        S = mint.where(future, float("-inf"), S)
    E = mint.exp(S - mint.max(S, dim=-1, keepdim=True)[0])
    P = E / mint.sum(E, dim=-1, keepdim=True)
    dV = mint.matmul(mint.transpose(P, -2, -1), do)
    dP = mint.matmul(do, mint.transpose(v, -2, -1))
    D = mint.sum(P * dP, dim=-1, keepdim=True)  # (..., queries, 1)
    dS = P * (dP - D)
    dQ = mint.matmul(dS, k) * scale
    dK = mint.matmul(mint.transpose(dS, -2, -1), q) * scale
    return dQ.astype(Q.dtype), dK.astype(K.dtype), dV.astype(V.dtype)
