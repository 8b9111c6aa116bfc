# Your implementation: keep every function's name, arguments and annotations; replace each
# `raise NotImplementedError`. `attnlab check <exercise>` checks one exercise, `attnlab status` all.
"""FlashAttention-2's backward pass as Triton kernels (Dao 2023, Algorithm 2; Stanford CS336 assignment 2).

The forward pass kept only O and the log-sum-exp L of each query's scores. The backward recomputes every
tile of P = exp(S − L) from Q, K and L (no softmax again: L already holds each row's max and sum), and never
holds a (queries × keys) tensor. With D = rowsum(dO ∘ O) (one number per query, which equals rowsum(P ∘ dP)):
    dV = Pᵀ dO,  dP = dO Vᵀ,  dS = P ∘ (dP − D),  dQ = dS K / √d,  dK = dSᵀ Q / √d.
Three kernels, as in CS336 and the FA2 paper without atomics:
- `rowsum_kernel`: D, one program per tile of queries;
- `key_tile_kernel`: one program per tile of keys, walking over the query tiles that can see it, holds its dK
  and dV tiles and writes them once;
- `query_tile_kernel`: one program per tile of queries, walking over the key tiles it can see, holds its dQ.
The launcher only allocates, reshapes and launches; without a GPU, Triton's interpreter (TRITON_INTERPRET=1,
set by grading) runs the same kernel source on the CPU.
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
    raise NotImplementedError("exercise triton_flash_backward: implement run_triton_flash_backward")
