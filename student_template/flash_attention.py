# Your implementation: keep every function's name, arguments and annotations; replace each
# `raise NotImplementedError`. `attnlab check <exercise>` checks one exercise, `attnlab status` all.
"""FlashAttention's forward pass (FlashAttention-2, Dao 2023): exact attention in tiles, never the whole
queries × keys matrix.

Plain attention builds S = Q Kᵀ / √d_k, one score per query and key: at 12288 tokens that is 576 MB of
float32 for a single head. FlashAttention walks over S one tile of block_q queries × block_k keys at a time
and keeps three running quantities per query: m, the largest score seen so far; l, the sum of exp(score − m)
so far; and acc, the sum of exp(score − m) · v so far. When a tile raises the max from m_old to m_new, what
was accumulated was measured against the old max, so l and acc are multiplied by exp(m_old − m_new) before
the tile's own terms are added. After the last tile, O = acc / l, and L = m + log l is the log-sum-exp of the
query's scores: the one number per query the backward pass needs to recompute P = exp(S − L).

With is_causal, the queries are the last positions of the keys' sequence (bottom-right alignment, as in
FlashAttention-2 and KV-cache decoding): query i sits at position keys − queries + i and attends to keys
j ≤ keys − queries + i. Tiles entirely after a query tile's last position are skipped, not computed.
"""

import math

import torch
from jaxtyping import Float, Float32
from torch import Tensor


def run_flash_attention(
    Q: Float[Tensor, "... queries d_k"],
    K: Float[Tensor, "... keys d_k"],
    V: Float[Tensor, "... keys d_v"],
    is_causal: bool = False,
    block_q: int = 16,
    block_k: int = 16,
) -> tuple[Float[Tensor, "... queries d_v"], Float32[Tensor, "... queries"]]:
    """softmax(Q Kᵀ / √d_k) V computed tile by tile with an online softmax, and its log-sum-exp L.

    Never holds a queries × keys tensor: the largest score tensor is one tile of block_q × block_k.

    Args:
        Q: queries, shape (..., queries, d_k).
        K: keys, shape (..., keys, d_k).
        V: values, shape (..., keys, d_v); d_v may differ from d_k.
        is_causal: if True, query i may attend only to keys j ≤ keys − queries + i (the queries are the
            last `queries` positions; with as many queries as keys, j ≤ i). Needs keys ≥ queries.
        block_q: queries per tile (any positive number; the last tile may be smaller).
        block_k: keys per tile (any positive number; the last tile may be smaller).

    Returns:
        O: the attention output, shape (..., queries, d_v), dtype and device of Q.
        L: float32, shape (..., queries): L[i] = log Σ_j exp(Q[i]·K[j] / √d_k) over the keys query i may
            attend to (FlashAttention's softmax_lse). Scores, m, l and acc are kept in at least float32,
            so bfloat16 inputs lose precision only when O is cast back.

    中文：FlashAttention-2 前向：按 block_q × block_k 的分块计算注意力（在线 softmax：运行最大值 m、运行和 l、
    累加器按 exp(m_old − m_new) 重新缩放），返回输出 O 与 float32 的 L = m + log l；从不构造完整的分数矩阵。
    """
    raise NotImplementedError("exercise flash_attention: implement run_flash_attention")


