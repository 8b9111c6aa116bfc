"""FlashAttention-2's forward pass as a Triton kernel (Dao 2023; Stanford CS336 assignment 2).

The same tiled online softmax as flash_attention, now written the way it runs on a GPU: one Triton program
per tile of BLOCK_Q queries of one (batch · head) slice. The program loads its queries once, walks over the
key tiles (only those a causal tile can see), keeps its running max m, running sum l and accumulator acc in
registers, and writes its rows of O and of L = m + log l. Nothing of size queries × keys ever exists: the
largest piece of the scores is one BLOCK_Q × BLOCK_K tile inside a program.

The launcher (run_triton_flash_forward) only allocates O and L, works out strides and the grid, and
launches the kernel: the arithmetic happens in the kernel. On a machine without a GPU, Triton's interpreter
(TRITON_INTERPRET=1, which grading sets) runs the same kernel source on the CPU.
"""

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

# BEGIN SOLUTION

BLOCK_Q, BLOCK_K = 16, 16  # tl.dot needs tiles of at least 16 × 16


@triton.jit
def flash_forward_kernel(Q, K, V, O, L, stride_qb, stride_qt, stride_kb, stride_kt, stride_vb, stride_vt,
                         stride_ob, stride_ot, stride_lb, n_queries, n_keys, scale,
                         IS_CAUSAL: tl.constexpr, D: tl.constexpr, COMPUTE: tl.constexpr,
                         BLOCK_Q: tl.constexpr, BLOCK_K: tl.constexpr):
    """One program: queries [tile · BLOCK_Q, (tile + 1) · BLOCK_Q) of slice `batch` (the last dim contiguous)."""
    tile, batch = tl.program_id(0), tl.program_id(1)
    rows = tile * BLOCK_Q + tl.arange(0, BLOCK_Q)  # (BLOCK_Q,) query indices
    dims = tl.arange(0, D)
    row_ok = rows < n_queries  # the last tile may stick out: masked, never read or written
    q = tl.load(Q + batch * stride_qb + rows[:, None] * stride_qt + dims[None, :], mask=row_ok[:, None], other=0.0)
    q = q.to(COMPUTE)
    offset = n_keys - n_queries if IS_CAUSAL else 0  # query i sits at position offset + i (bottom-right)
    end = n_keys
    if IS_CAUSAL:
        end = tl.minimum(n_keys, (tile + 1) * BLOCK_Q + offset)  # later key tiles are all in the future
    m = tl.full((BLOCK_Q,), float("-inf"), COMPUTE)
    l = tl.zeros((BLOCK_Q,), COMPUTE)
    acc = tl.zeros((BLOCK_Q, D), COMPUTE)
    for start in range(0, end, BLOCK_K):
        cols = start + tl.arange(0, BLOCK_K)  # (BLOCK_K,) key indices
        col_ok = cols < n_keys
        k = tl.load(K + batch * stride_kb + cols[:, None] * stride_kt + dims[None, :], mask=col_ok[:, None], other=0.0)
        v = tl.load(V + batch * stride_vb + cols[:, None] * stride_vt + dims[None, :], mask=col_ok[:, None], other=0.0)
        s = tl.dot(q, tl.trans(k.to(COMPUTE)), input_precision="ieee") * scale  # (BLOCK_Q, BLOCK_K)
        allowed = col_ok[None, :]
        if IS_CAUSAL:
            allowed = allowed & (cols[None, :] <= rows[:, None] + offset)
        s = tl.where(allowed, s, float("-inf"))
        m_new = tl.maximum(m, tl.max(s, axis=1))  # finite: key 0 is in the first tile, for every row
        p = tl.exp(s - m_new[:, None])
        rescale = tl.exp(m - m_new)  # what l and acc were measured against has moved
        l = l * rescale + tl.sum(p, axis=1)
        acc = acc * rescale[:, None] + tl.dot(p, v.to(COMPUTE), input_precision="ieee")
        m = m_new
    out = acc / l[:, None]
    tl.store(O + batch * stride_ob + rows[:, None] * stride_ot + dims[None, :], out.to(O.dtype.element_ty),
             mask=row_ok[:, None])
    tl.store(L + batch * stride_lb + rows, (m + tl.log(l)).to(tl.float32), mask=row_ok)
# END SOLUTION


def run_triton_flash_forward(
    Q: Float[Tensor, "... queries d"],
    K: Float[Tensor, "... keys d"],
    V: Float[Tensor, "... keys d"],
    is_causal: bool = False,
) -> tuple[Float[Tensor, "... queries d"], Float32[Tensor, "... queries"]]:
    """softmax(Q Kᵀ / √d) V and its log-sum-exp L, computed by a @triton.jit kernel.

    flash_attention's conventions: L is float32; with is_causal the queries are the last positions of the
    keys' sequence (query i attends to keys j ≤ keys − queries + i); any lengths (tiles that do not divide
    them are masked). d is a power of two, 16 ≤ d ≤ 128. The launcher allocates and launches only: every
    number of O and L comes from the kernel, and no (queries × keys) tensor is ever made.

    Args:
        Q: (..., queries, d); K, V: (..., keys, d), keys ≥ queries when is_causal.
        is_causal: bottom-right causal masking.

    Returns:
        O (..., queries, d) in Q's dtype and device; L (..., queries) float32.

    中文：用 @triton.jit 内核计算 FlashAttention-2 前向：返回 O（dtype 同 Q）与 float32 的 L；约定同 flash_attention
    （右下对齐的因果掩码，长度任意，块不整除时用掩码）。启动函数只分配输出并启动内核，不得用 torch 计算。
    """
    # BEGIN SOLUTION
    lead, n_queries, d = Q.shape[:-2], Q.shape[-2], Q.shape[-1]
    n_keys = K.shape[-2]
    q = Q.reshape(-1, n_queries, d).contiguous()  # (batch, queries, d): one slice per program column
    k = K.reshape(-1, n_keys, d).contiguous()
    v = V.reshape(-1, n_keys, d).contiguous()
    out = torch.empty_like(q)
    lse = torch.empty(q.shape[:-1], dtype=torch.float32, device=Q.device)  # (batch, queries)
    compute = tl.float64 if Q.dtype == torch.float64 else tl.float32
    grid = (triton.cdiv(n_queries, BLOCK_Q), q.shape[0])
    flash_forward_kernel[grid](q, k, v, out, lse, q.stride(0), q.stride(1), k.stride(0), k.stride(1),
                               v.stride(0), v.stride(1), out.stride(0), out.stride(1), lse.stride(0),
                               n_queries, n_keys, 1.0 / math.sqrt(d), IS_CAUSAL=is_causal, D=d,
                               COMPUTE=compute, BLOCK_Q=BLOCK_Q, BLOCK_K=BLOCK_K)
    return out.reshape(*lead, n_queries, d), lse.reshape(*lead, n_queries)
    # END SOLUTION
