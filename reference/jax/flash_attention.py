"""FlashAttention's forward pass in JAX (FlashAttention-2, Dao 2023): exact attention in tiles, never the
whole queries × keys matrix.

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

JAX arrays are immutable, so the running m, l and acc are rebound to new arrays at every tile (there is no
in-place update to forget), and the tiles are plain Python loops over slices: each slice is its own small
array, and the last tile of a loop may be smaller. (`jax.lax.dynamic_slice` would clamp that last tile's
start and visit some keys twice.) The update for one tile is a `jax.jit` function: JAX compiles once per
tile shape, and one compiled step is much cheaper than compiling each of its operations on its own.
"""

import functools
import math

import jax
import jax.numpy as jnp
from jaxtyping import Float, Float32


def run_flash_attention(
    Q: Float[jax.Array, "... queries d_k"],
    K: Float[jax.Array, "... keys d_k"],
    V: Float[jax.Array, "... keys d_v"],
    is_causal: bool = False,
    block_q: int = 16,
    block_k: int = 16,
) -> tuple[Float[jax.Array, "... queries d_v"], Float32[jax.Array, "... queries"]]:
    """softmax(Q Kᵀ / √d_k) V computed tile by tile with an online softmax, and its log-sum-exp L.

    Never makes a queries × keys array: the largest score array is one tile of block_q × block_k.

    Args:
        Q: queries, jax.Array of shape (..., queries, d_k).
        K: keys, jax.Array of shape (..., keys, d_k).
        V: values, jax.Array of shape (..., keys, d_v); d_v may differ from d_k.
        is_causal: if True, query i may attend only to keys j ≤ keys − queries + i (the queries are the
            last `queries` positions; with as many queries as keys, j ≤ i). Needs keys ≥ queries.
        block_q: queries per tile (any positive number; the last tile may be smaller).
        block_k: keys per tile (any positive number; the last tile may be smaller).

    Returns:
        O: the attention output, jax.Array of shape (..., queries, d_v) and the dtype of Q.
        L: jnp.float32, shape (..., queries): L[i] = log Σ_j exp(Q[i]·K[j] / √d_k) over the keys query i may
            attend to (FlashAttention's softmax_lse). Scores, m, l and acc are kept in at least float32
            (`jnp.promote_types(Q.dtype, jnp.float32)`), so jnp.bfloat16 inputs lose precision only when O
            is cast back.

    中文：FlashAttention-2 前向：按 block_q × block_k 的分块计算注意力（在线 softmax：运行最大值 m、运行和 l、
    累加器按 exp(m_old − m_new) 重新缩放），返回输出 O 与 float32 的 L = m + log l；从不构造完整的分数矩阵。
    """
    # BEGIN SOLUTION
    work = jnp.promote_types(Q.dtype, jnp.float32)  # bfloat16 inputs: accumulate in float32
    q, k, v = Q.astype(work), K.astype(work), V.astype(work)
    n_queries, n_keys = q.shape[-2], k.shape[-2]
    offset = n_keys - n_queries if is_causal else 0  # query i sits at position offset + i
    outputs, lses = [], []
    for q_start in range(0, n_queries, block_q):
        q_tile = q[..., q_start:q_start + block_q, :]  # (..., bq, d_k)
        out, lse = _attend_query_tile(q_tile, k, v, q_start + offset, is_causal, block_k)
        outputs.append(out)
        lses.append(lse)
    out = jnp.concatenate(outputs, axis=-2)  # (..., queries, d_v): O
    lse = jnp.concatenate(lses, axis=-1)  # (..., queries): L
    return out.astype(Q.dtype), lse.astype(jnp.float32)
    # END SOLUTION


# BEGIN SOLUTION
def _attend_query_tile(q_tile: jax.Array, k: jax.Array, v: jax.Array, first_position: int, is_causal: bool,
                       block_k: int) -> tuple[jax.Array, jax.Array]:
    """One tile of queries against every key tile it may see: (its output rows, their log-sum-exp)."""
    scale = 1.0 / math.sqrt(q_tile.shape[-1])
    last_key = first_position + q_tile.shape[-2] if is_causal else k.shape[-2]  # later key tiles: all masked
    # the paper's m, l and acc, per query of the tile
    running_max = jnp.full((*q_tile.shape[:-1], 1), -jnp.inf, dtype=q_tile.dtype)  # (..., bq, 1)
    running_sum = jnp.zeros_like(running_max)  # (..., bq, 1)
    acc = jnp.zeros((*q_tile.shape[:-1], v.shape[-1]), dtype=q_tile.dtype)  # (..., bq, d_v)
    for k_start in range(0, min(last_key, k.shape[-2]), block_k):
        k_tile, v_tile = k[..., k_start:k_start + block_k, :], v[..., k_start:k_start + block_k, :]
        running_max, running_sum, acc = _online_step(q_tile, k_tile, v_tile, running_max, running_sum, acc,
                                                     first_position, k_start, is_causal=is_causal, scale=scale)
    return acc / running_sum, (running_max + jnp.log(running_sum))[..., 0]


@functools.partial(jax.jit, static_argnames=("is_causal", "scale"))
def _online_step(q_tile, k_tile, v_tile, running_max, running_sum, acc, first_position, k_start, *, is_causal,
                 scale):
    """m, l and acc after one key tile (positions are traced: one compilation per tile shape)."""
    s = q_tile @ jnp.swapaxes(k_tile, -2, -1) * scale  # (..., bq, bk): one tile of the scores
    if is_causal:
        s = _mask_future(s, first_position, k_start)
    new_max = jnp.maximum(running_max, s.max(axis=-1, keepdims=True))  # finite: key 0 is in the first tile
    p = jnp.exp(s - new_max)  # (..., bq, bk), masked scores give 0
    rescale = jnp.exp(running_max - new_max)  # what the sum and acc were measured against has moved
    return new_max, running_sum * rescale + p.sum(axis=-1, keepdims=True), acc * rescale + p @ v_tile


def _mask_future(s: jax.Array, first_position: int, k_start: int) -> jax.Array:
    """-inf where a key comes after the query: tile row r is position first_position + r, column c key k_start + c."""
    rows = jnp.arange(s.shape[-2])[:, None] + first_position  # (bq, 1)
    cols = jnp.arange(s.shape[-1])[None, :] + k_start  # (1, bk)
    return jnp.where(cols > rows, -jnp.inf, s)
# END SOLUTION
