# Your implementation: keep every function's name, arguments and annotations; replace each
# `raise NotImplementedError`. `attnlab check <exercise>` checks one exercise, `attnlab status` all.
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
    raise NotImplementedError("exercise triton_flash_forward: implement run_triton_flash_forward")
