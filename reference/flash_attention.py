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
    # BEGIN SOLUTION
    work = torch.promote_types(Q.dtype, torch.float32)  # bfloat16 inputs: accumulate in float32
    q, k, v = Q.to(work), K.to(work), V.to(work)
    n_queries, n_keys = q.shape[-2], k.shape[-2]
    offset = n_keys - n_queries if is_causal else 0  # query i sits at position offset + i
    outputs, lses = [], []
    for q_start in range(0, n_queries, block_q):
        q_tile = q[..., q_start:q_start + block_q, :]  # (..., bq, d_k)
        out, lse = attend_query_tile(q_tile, k, v, q_start + offset, is_causal, block_k)
        outputs.append(out)
        lses.append(lse)
    out = torch.cat(outputs, dim=-2)  # (..., queries, d_v): O
    lse = torch.cat(lses, dim=-1)  # (..., queries): L
    return out.to(Q.dtype), lse.to(torch.float32)
    # END SOLUTION


# BEGIN SOLUTION
def attend_query_tile(q_tile: Tensor, k: Tensor, v: Tensor, first_position: int, is_causal: bool,
                      block_k: int) -> tuple[Tensor, Tensor]:
    """One tile of queries against every key tile it may see: (its output rows, their log-sum-exp)."""
    scale = 1.0 / math.sqrt(q_tile.shape[-1])
    tile_rows = q_tile.shape[-2]
    last_key = first_position + tile_rows if is_causal else k.shape[-2]  # later key tiles are all masked
    # the paper's m, l and acc, per query of the tile
    running_max = torch.full((*q_tile.shape[:-1], 1), float("-inf"), dtype=q_tile.dtype,
                             device=q_tile.device)  # (..., bq, 1)
    running_sum = torch.zeros_like(running_max)  # (..., bq, 1)
    acc = torch.zeros((*q_tile.shape[:-1], v.shape[-1]), dtype=q_tile.dtype, device=q_tile.device)  # (..., bq, d_v)
    for k_start in range(0, min(last_key, k.shape[-2]), block_k):
        k_tile, v_tile = k[..., k_start:k_start + block_k, :], v[..., k_start:k_start + block_k, :]
        s = q_tile @ k_tile.transpose(-2, -1) * scale  # (..., bq, bk): one tile of the scores
        if is_causal:
            s = mask_future(s, first_position, k_start)
        new_max = torch.maximum(running_max, s.amax(dim=-1, keepdim=True))  # finite: key 0 is in the first tile
        p = torch.exp(s - new_max)  # (..., bq, bk), masked scores give 0
        rescale = torch.exp(running_max - new_max)  # what the sum and acc were measured against has moved
        running_sum = running_sum * rescale + p.sum(dim=-1, keepdim=True)
        acc = acc * rescale + p @ v_tile
        running_max = new_max
    return acc / running_sum, (running_max + torch.log(running_sum)).squeeze(-1)


def mask_future(s: Tensor, first_position: int, k_start: int) -> Tensor:
    """-inf where a key comes after the query: tile row r is position first_position + r, column c key k_start + c."""
    rows = torch.arange(s.shape[-2], device=s.device)[:, None] + first_position  # (bq, 1)
    cols = torch.arange(s.shape[-1], device=s.device)[None, :] + k_start  # (1, bk)
    return s.masked_fill(cols > rows, float("-inf"))
# END SOLUTION
