"""Holds every query as one tile: BLOCK_Q = triton.next_power_of_2(n_queries) at launch, so each key tile's
program recomputes a whole column block of P (all queries × BLOCK_K) at once. Right numbers, and no
torch tensor is over budget, but the kernel materialises what FlashAttention tiles away; the 256-token case's
tile budget (max_tile_side) catches it."""

import math
import os

import torch

# Without a GPU, Triton's interpreter runs the kernels on the CPU. Triton reads this when it is first imported
# (its own library kernels) and when @triton.jit decorates, so it comes first (grading sets it too).
if "TRITON_INTERPRET" not in os.environ and not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from jaxtyping import Float, Float32  # noqa: E402
from torch import Tensor  # noqa: E402

DIAGNOSIS = None

BLOCK_Q, BLOCK_K = 16, 16  # tl.dot needs tiles of at least 16 × 16


@triton.jit
def rowsum_kernel(O, dO, Dsum, stride_b, stride_t, stride_db, n_queries,
                  D: tl.constexpr, COMPUTE: tl.constexpr, BLOCK_Q: tl.constexpr):
    """D = rowsum(dO ∘ O) for queries [tile · BLOCK_Q, (tile + 1) · BLOCK_Q) of slice `batch`."""
    tile, batch = tl.program_id(0), tl.program_id(1)
    rows = tile * BLOCK_Q + tl.arange(0, BLOCK_Q)
    dims = tl.arange(0, D)
    row_ok = rows < n_queries
    at = batch * stride_b + rows[:, None] * stride_t + dims[None, :]
    o = tl.load(O + at, mask=row_ok[:, None], other=0.0).to(COMPUTE)
    do = tl.load(dO + at, mask=row_ok[:, None], other=0.0).to(COMPUTE)
    tl.store(Dsum + batch * stride_db + rows, tl.sum(o * do, axis=1), mask=row_ok)


@triton.jit
def probabilities(q, k, lse, rows, cols, n_queries, n_keys, offset, scale, IS_CAUSAL: tl.constexpr):
    """P = exp(Q Kᵀ / √d − L) of one tile, 0 where a query may not attend or a row or column sticks out."""
    s = tl.dot(q, tl.trans(k), input_precision="ieee") * scale
    allowed = (rows[:, None] < n_queries) & (cols[None, :] < n_keys)
    if IS_CAUSAL:
        allowed = allowed & (cols[None, :] <= rows[:, None] + offset)
    return tl.where(allowed, tl.exp(s - lse[:, None]), 0.0)


@triton.jit
def key_tile_kernel(Q, K, V, dO, L, Dsum, dK, dV, stride_qb, stride_qt, stride_kb, stride_kt, stride_lb,
                    n_queries, n_keys, scale, IS_CAUSAL: tl.constexpr, D: tl.constexpr, COMPUTE: tl.constexpr,
                    BLOCK_Q: tl.constexpr, BLOCK_K: tl.constexpr):
    """dK and dV of keys [tile · BLOCK_K, (tile + 1) · BLOCK_K): a sum over every query that sees them."""
    tile, batch = tl.program_id(0), tl.program_id(1)
    cols = tile * BLOCK_K + tl.arange(0, BLOCK_K)
    dims = tl.arange(0, D)
    col_ok = cols < n_keys
    at_k = batch * stride_kb + cols[:, None] * stride_kt + dims[None, :]
    k = tl.load(K + at_k, mask=col_ok[:, None], other=0.0).to(COMPUTE)
    v = tl.load(V + at_k, mask=col_ok[:, None], other=0.0).to(COMPUTE)
    offset = n_keys - n_queries if IS_CAUSAL else 0  # query i sits at position offset + i (bottom-right)
    first = 0
    if IS_CAUSAL:  # queries before position tile · BLOCK_K see none of these keys
        first = tl.maximum(tile * BLOCK_K - offset, 0) // BLOCK_Q * BLOCK_Q
    dk = tl.zeros((BLOCK_K, D), COMPUTE)
    dv = tl.zeros((BLOCK_K, D), COMPUTE)
    for start in range(first, n_queries, BLOCK_Q):
        rows = start + tl.arange(0, BLOCK_Q)
        row_ok = rows < n_queries
        at_q = batch * stride_qb + rows[:, None] * stride_qt + dims[None, :]
        q = tl.load(Q + at_q, mask=row_ok[:, None], other=0.0).to(COMPUTE)
        do = tl.load(dO + at_q, mask=row_ok[:, None], other=0.0).to(COMPUTE)
        lse = tl.load(L + batch * stride_lb + rows, mask=row_ok, other=0.0).to(COMPUTE)
        delta = tl.load(Dsum + batch * stride_lb + rows, mask=row_ok, other=0.0).to(COMPUTE)
        p = probabilities(q, k, lse, rows, cols, n_queries, n_keys, offset, scale, IS_CAUSAL)
        dv += tl.dot(tl.trans(p), do, input_precision="ieee")
        dp = tl.dot(do, tl.trans(v), input_precision="ieee")
        ds = p * (dp - delta[:, None])
        dk += tl.dot(tl.trans(ds), q, input_precision="ieee") * scale
    tl.store(dK + at_k, dk.to(dK.dtype.element_ty), mask=col_ok[:, None])
    tl.store(dV + at_k, dv.to(dV.dtype.element_ty), mask=col_ok[:, None])


@triton.jit
def query_tile_kernel(Q, K, V, dO, L, Dsum, dQ, stride_qb, stride_qt, stride_kb, stride_kt, stride_lb,
                      n_queries, n_keys, scale, IS_CAUSAL: tl.constexpr, D: tl.constexpr, COMPUTE: tl.constexpr,
                      BLOCK_Q: tl.constexpr, BLOCK_K: tl.constexpr):
    """dQ of queries [tile · BLOCK_Q, (tile + 1) · BLOCK_Q): a sum over every key they see."""
    tile, batch = tl.program_id(0), tl.program_id(1)
    rows = tile * BLOCK_Q + tl.arange(0, BLOCK_Q)
    dims = tl.arange(0, D)
    row_ok = rows < n_queries
    at_q = batch * stride_qb + rows[:, None] * stride_qt + dims[None, :]
    q = tl.load(Q + at_q, mask=row_ok[:, None], other=0.0).to(COMPUTE)
    do = tl.load(dO + at_q, mask=row_ok[:, None], other=0.0).to(COMPUTE)
    lse = tl.load(L + batch * stride_lb + rows, mask=row_ok, other=0.0).to(COMPUTE)
    delta = tl.load(Dsum + batch * stride_lb + rows, mask=row_ok, other=0.0).to(COMPUTE)
    offset = n_keys - n_queries if IS_CAUSAL else 0
    end = n_keys
    if IS_CAUSAL:
        end = tl.minimum(n_keys, (tile + 1) * BLOCK_Q + offset)  # later key tiles are all in the future
    dq = tl.zeros((BLOCK_Q, D), COMPUTE)
    for start in range(0, end, BLOCK_K):
        cols = start + tl.arange(0, BLOCK_K)
        col_ok = cols < n_keys
        at_k = batch * stride_kb + cols[:, None] * stride_kt + dims[None, :]
        k = tl.load(K + at_k, mask=col_ok[:, None], other=0.0).to(COMPUTE)
        v = tl.load(V + at_k, mask=col_ok[:, None], other=0.0).to(COMPUTE)
        p = probabilities(q, k, lse, rows, cols, n_queries, n_keys, offset, scale, IS_CAUSAL)
        dp = tl.dot(do, tl.trans(v), input_precision="ieee")
        dq += tl.dot(p * (dp - delta[:, None]), k, input_precision="ieee") * scale
    tl.store(dQ + at_q, dq.to(dQ.dtype.element_ty), mask=row_ok[:, None])


def run_triton_flash_backward(
    Q: Float[Tensor, "... queries d"],
    K: Float[Tensor, "... keys d"],
    V: Float[Tensor, "... keys d"],
    O: Float[Tensor, "... queries d"],
    L: Float32[Tensor, "... queries"],
    dO: Float[Tensor, "... queries d"],
    is_causal: bool = False,
) -> tuple[Float[Tensor, "... queries d"], Float[Tensor, "... keys d"], Float[Tensor, "... keys d"]]:
    """dQ, dK, dV of O = softmax(Q Kᵀ / √d) V given dO, computed by @triton.jit kernels from the forward's L.

    triton_flash_forward's conventions: O and L (float32) are what it returns for Q, K, V; with is_causal the
    queries are the last positions of the keys' sequence (query i attends to keys j ≤ keys − queries + i); any
    lengths (tiles that do not divide them are masked); d a power of two, 16 ≤ d ≤ 128. The kernels recompute
    P = exp(Q Kᵀ / √d − L) tile by tile with D = rowsum(dO ∘ O); the launcher allocates and launches only.

    Args:
        Q: (..., queries, d); K, V: (..., keys, d), keys ≥ queries when is_causal.
        O: (..., queries, d) and L: (..., queries) float32, the forward pass's outputs; dO like O.
        is_causal: bottom-right causal masking.

    Returns:
        dQ like Q, dK like K, dV like V (their dtypes and device).

    中文：用 @triton.jit 内核计算 FlashAttention-2 的反向传播：由前向的 L 重新计算 P = exp(Q Kᵀ / √d − L)，
    D = rowsum(dO ∘ O)，返回 dQ、dK、dV；约定同 triton_flash_forward。启动函数只分配输出并启动内核，不得用 torch 计算，
    也不得使用 autograd。
    """
    lead, n_queries, d = Q.shape[:-2], Q.shape[-2], Q.shape[-1]
    n_keys = K.shape[-2]
    q, o, do = (t.reshape(-1, n_queries, d).contiguous() for t in (Q, O, dO))  # (batch, queries, d), alike
    k, v = (t.reshape(-1, n_keys, d).contiguous() for t in (K, V))
    lse = L.reshape(-1, n_queries).contiguous()
    delta = torch.empty(lse.shape, dtype=torch.float64 if Q.dtype == torch.float64 else torch.float32,
                        device=Q.device)
    dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
    compute = tl.float64 if Q.dtype == torch.float64 else tl.float32
    batch, scale = q.shape[0], 1.0 / math.sqrt(d)
    rowsum_kernel[(triton.cdiv(n_queries, BLOCK_Q), batch)](o, do, delta, o.stride(0), o.stride(1), delta.stride(0),
                                                            n_queries, D=d, COMPUTE=compute, BLOCK_Q=BLOCK_Q)
    # every query in one tile: each key tile's program walks them in a single step
    common = dict(IS_CAUSAL=is_causal, D=d, COMPUTE=compute, BLOCK_Q=max(16, triton.next_power_of_2(n_queries)),
                  BLOCK_K=BLOCK_K)
    strides = (q.stride(0), q.stride(1), k.stride(0), k.stride(1), lse.stride(0))
    key_tile_kernel[(triton.cdiv(n_keys, BLOCK_K), batch)](q, k, v, do, lse, delta, dk, dv, *strides,
                                                           n_queries, n_keys, scale, **common)
    query_tile_kernel[(triton.cdiv(n_queries, BLOCK_Q), batch)](q, k, v, do, lse, delta, dq, *strides,
                                                                n_queries, n_keys, scale, **common)
    return dq.reshape(*lead, n_queries, d), dk.reshape(*lead, n_keys, d), dv.reshape(*lead, n_keys, d)
