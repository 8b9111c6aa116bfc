"""@triton.autotune over two tile shapes (CS336 students autotune their kernels): under the interpreter, where
no GPU times the configs, the first one runs."""

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


@triton.autotune(configs=[triton.Config({"BLOCK_Q": 16, "BLOCK_K": 16}), triton.Config({"BLOCK_Q": 32, "BLOCK_K": 16})],
                 key=["n_queries", "n_keys", "D"])
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


def run_triton_flash_forward(
    Q: Float[Tensor, "... queries d"],
    K: Float[Tensor, "... keys d"],
    V: Float[Tensor, "... keys d"],
    is_causal: bool = False,
) -> tuple[Float[Tensor, "... queries d"], Float32[Tensor, "... queries"]]:
    lead, n_queries, d = Q.shape[:-2], Q.shape[-2], Q.shape[-1]
    n_keys = K.shape[-2]
    q = Q.reshape(-1, n_queries, d).contiguous()  # (batch, queries, d): one slice per program column
    k = K.reshape(-1, n_keys, d).contiguous()
    v = V.reshape(-1, n_keys, d).contiguous()
    out = torch.empty_like(q)
    lse = torch.empty(q.shape[:-1], dtype=torch.float32, device=Q.device)  # (batch, queries)
    compute = tl.float64 if Q.dtype == torch.float64 else tl.float32
    grid = lambda meta: (triton.cdiv(n_queries, meta["BLOCK_Q"]), q.shape[0])  # noqa: E731
    flash_forward_kernel[grid](q, k, v, out, lse, q.stride(0), q.stride(1), k.stride(0), k.stride(1),
                               v.stride(0), v.stride(1), out.stride(0), out.stride(1), lse.stride(0),
                               n_queries, n_keys, 1.0 / math.sqrt(d), IS_CAUSAL=is_causal, D=d,
                               COMPUTE=compute)
    return out.reshape(*lead, n_queries, d), lse.reshape(*lead, n_queries)
