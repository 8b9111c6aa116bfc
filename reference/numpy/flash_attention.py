"""FlashAttention's forward pass in NumPy (FlashAttention-2, Dao 2023): exact attention in tiles, never the
whole queries × keys matrix.

Plain attention builds S = Q Kᵀ / √d_k, one score per query and key: at 12288 tokens that is 576 MB of
float32 for a single head. FlashAttention walks over S one tile of block_q queries × block_k keys at a time
and keeps three running quantities per query: m, the largest score seen so far; l, the sum of exp(score − m)
so far; and acc, the sum of exp(score − m) · v so far. When a tile raises the max from m_old to m_new, what
was accumulated was measured against the old max, so l and acc are multiplied by exp(m_old − m_new) before
the tile's own terms are added. After the last tile, O = acc / l, and L = m + log l is the log-sum-exp of the
query's scores.

With is_causal, the queries are the last positions of the keys' sequence (bottom-right alignment): query i
sits at position keys − queries + i and attends to keys j ≤ keys − queries + i. Key tiles entirely after a
query tile's last position are skipped.
"""

import math

import numpy as np
from jaxtyping import Float, Float32


def run_flash_attention(
    Q: Float[np.ndarray, "... queries d_k"],
    K: Float[np.ndarray, "... keys d_k"],
    V: Float[np.ndarray, "... keys d_v"],
    is_causal: bool = False,
    block_q: int = 16,
    block_k: int = 16,
) -> tuple[Float[np.ndarray, "... queries d_v"], Float32[np.ndarray, "... queries"]]:
    """softmax(Q Kᵀ / √d_k) V computed tile by tile with an online softmax, and its log-sum-exp L.

    Never holds a queries × keys array: the largest score array is one tile of block_q × block_k.

    Args:
        Q: queries, shape (..., queries, d_k).
        K: keys, shape (..., keys, d_k).
        V: values, shape (..., keys, d_v); d_v may differ from d_k.
        is_causal: if True, query i may attend only to keys j ≤ keys − queries + i (the queries are the
            last `queries` positions; with as many queries as keys, j ≤ i). Needs keys ≥ queries.
        block_q: queries per tile (any positive number; the last tile may be smaller).
        block_k: keys per tile (any positive number; the last tile may be smaller).

    Returns:
        O: numpy.ndarray of shape (..., queries, d_v) and Q's dtype.
        L: float32 numpy.ndarray of shape (..., queries): L[i] = log Σ_j exp(Q[i]·K[j] / √d_k) over the
            keys query i may attend to. Scores, m, l and acc are kept in at least float32 (np.promote_types
            with float32), so bfloat16 (ml_dtypes) inputs lose precision only when O is cast back.

    中文：NumPy 版 FlashAttention-2 前向：按 block_q × block_k 分块计算注意力（在线 softmax：运行最大值 m、运行和 l、
    累加器按 exp(m_old − m_new) 重新缩放），返回输出 O 与 float32 的 L = m + log l；从不构造完整的分数矩阵。
    """
    # BEGIN SOLUTION
    work = np.promote_types(Q.dtype, np.float32)  # bfloat16 inputs: accumulate in float32
    q, k, v = Q.astype(work), K.astype(work), V.astype(work)
    n_queries, n_keys = q.shape[-2], k.shape[-2]
    offset = n_keys - n_queries if is_causal else 0  # query i sits at position offset + i
    outputs, lses = [], []
    for q_start in range(0, n_queries, block_q):
        q_tile = q[..., q_start:q_start + block_q, :]  # (..., bq, d_k)
        out, lse = _attend_query_tile(q_tile, k, v, q_start + offset, is_causal, block_k)
        outputs.append(out)
        lses.append(lse)
    out = np.concatenate(outputs, axis=-2)  # (..., queries, d_v): O
    lse = np.concatenate(lses, axis=-1)  # (..., queries): L
    return out.astype(Q.dtype), lse.astype(np.float32)
    # END SOLUTION


# BEGIN SOLUTION
def _attend_query_tile(q_tile: np.ndarray, k: np.ndarray, v: np.ndarray, first_position: int, is_causal: bool,
                       block_k: int) -> tuple[np.ndarray, np.ndarray]:
    """One tile of queries against every key tile it may see: (its output rows, their log-sum-exp)."""
    scale = 1.0 / math.sqrt(q_tile.shape[-1])
    last_key = first_position + q_tile.shape[-2] if is_causal else k.shape[-2]  # later key tiles: all masked
    running_max = np.full((*q_tile.shape[:-1], 1), -np.inf, dtype=q_tile.dtype)  # (..., bq, 1): m
    running_sum = np.zeros_like(running_max)  # (..., bq, 1): l
    acc = np.zeros((*q_tile.shape[:-1], v.shape[-1]), dtype=q_tile.dtype)  # (..., bq, d_v)
    for k_start in range(0, min(last_key, k.shape[-2]), block_k):
        k_tile, v_tile = k[..., k_start:k_start + block_k, :], v[..., k_start:k_start + block_k, :]
        s = (q_tile @ k_tile.swapaxes(-2, -1) * scale).astype(q_tile.dtype)  # (..., bq, bk): one tile
        if is_causal:
            rows = np.arange(s.shape[-2])[:, None] + first_position  # (bq, 1): each row's position
            cols = np.arange(s.shape[-1])[None, :] + k_start  # (1, bk): each column's key
            s = np.where(cols > rows, -np.inf, s)
        new_max = np.maximum(running_max, s.max(axis=-1, keepdims=True))  # finite: key 0 is in the first tile
        p = np.exp(s - new_max)  # (..., bq, bk); masked scores give 0
        rescale = np.exp(running_max - new_max)  # what l and acc were measured against has moved
        running_sum = running_sum * rescale + p.sum(axis=-1, keepdims=True)
        acc = acc * rescale + p @ v_tile
        running_max = new_max
    return acc / running_sum, (running_max + np.log(running_sum))[..., 0]
# END SOLUTION
