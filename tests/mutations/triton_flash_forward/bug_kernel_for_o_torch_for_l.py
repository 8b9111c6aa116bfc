"""Launches a kernel for O but computes L in the launcher with torch.logsumexp over the whole score matrix:
torch arithmetic outside the kernel (and a queries × keys tensor), so this gets no points."""

import math
import os

import torch

if "TRITON_INTERPRET" not in os.environ and not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"

import triton  # noqa: E402
import triton.language as tl  # noqa: E402

DIAGNOSIS = None


@triton.jit
def attention_rows_kernel(Q, K, V, O, n_queries, n_keys, scale, IS_CAUSAL: tl.constexpr, D: tl.constexpr,
                          BLOCK_Q: tl.constexpr, BLOCK_K: tl.constexpr):
    tile, b = tl.program_id(0), tl.program_id(1)
    rows = tile * BLOCK_Q + tl.arange(0, BLOCK_Q)
    dims = tl.arange(0, D)
    q = tl.load(Q + b * n_queries * D + rows[:, None] * D + dims[None, :], mask=rows[:, None] < n_queries, other=0.0)
    m = tl.full((BLOCK_Q,), float("-inf"), tl.float32)
    l = tl.zeros((BLOCK_Q,), tl.float32)
    acc = tl.zeros((BLOCK_Q, D), tl.float32)
    for start in range(0, n_keys, BLOCK_K):
        cols = start + tl.arange(0, BLOCK_K)
        k = tl.load(K + b * n_keys * D + cols[:, None] * D + dims[None, :], mask=cols[:, None] < n_keys, other=0.0)
        v = tl.load(V + b * n_keys * D + cols[:, None] * D + dims[None, :], mask=cols[:, None] < n_keys, other=0.0)
        s = tl.dot(q, tl.trans(k), input_precision="ieee") * scale
        ok = cols[None, :] < n_keys
        if IS_CAUSAL:
            ok = ok & (cols[None, :] <= rows[:, None] + n_keys - n_queries)
        s = tl.where(ok, s, float("-inf"))
        m_new = tl.maximum(m, tl.max(s, axis=1))
        p = tl.exp(s - m_new[:, None])
        l = l * tl.exp(m - m_new) + tl.sum(p, axis=1)
        acc = acc * tl.exp(m - m_new)[:, None] + tl.dot(p, v, input_precision="ieee")
        m = m_new
    tl.store(O + b * n_queries * D + rows[:, None] * D + dims[None, :], acc / l[:, None], mask=rows[:, None] < n_queries)


def run_triton_flash_forward(Q, K, V, is_causal=False):
    lead, n_q, d = Q.shape[:-2], Q.shape[-2], Q.shape[-1]
    n_k = K.shape[-2]
    q = Q.reshape(-1, n_q, d).to(torch.float32).contiguous()
    k = K.reshape(-1, n_k, d).to(torch.float32).contiguous()
    v = V.reshape(-1, n_k, d).to(torch.float32).contiguous()
    out = torch.empty_like(q)
    attention_rows_kernel[(triton.cdiv(n_q, 16), q.shape[0])](q, k, v, out, n_q, n_k, 1.0 / math.sqrt(d),
                                                              IS_CAUSAL=is_causal, D=d, BLOCK_Q=16, BLOCK_K=16)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d)
    if is_causal:
        scores = scores.masked_fill(torch.ones(n_q, n_k, dtype=torch.bool).tril(n_k - n_q).logical_not(), float("-inf"))
    return out.to(Q.dtype).reshape(*lead, n_q, d), torch.logsumexp(scores, dim=-1).reshape(*lead, n_q)
