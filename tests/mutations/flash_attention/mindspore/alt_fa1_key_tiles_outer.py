"""FlashAttention-1's loop order (Algorithm 1 of the first paper) in MindSpore: key tiles outside, query tiles
inside, with O kept normalised and m, l stored per query between visits in full-length tensors updated by
slice assignment (`O[..., rows, :] = ...`). Correct: each visit merges the tile's (m_tile, l_tile, P V) into
the stored statistics with the factors exp(m_old − m_new) and exp(m_tile − m_new), which is the same online
softmax in another order; causal key tiles wholly after a query tile are skipped, partly masked ones are
masked by absolute position, and a row with no visible key in a tile contributes nothing."""

import math

import mindspore
from mindspore import ops


def run_flash_attention(Q, K, V, is_causal=False, block_q=16, block_k=16):
    work = mindspore.float64 if Q.dtype == mindspore.float64 else mindspore.float32
    q_all, k_all, v_all = Q.astype(work), K.astype(work), V.astype(work)
    n_q, n_k = Q.shape[-2], K.shape[-2]
    shift = n_k - n_q if is_causal else 0
    O = ops.zeros((*Q.shape[:-1], V.shape[-1]), work)
    l = ops.zeros((*Q.shape[:-1], 1), work)
    m = ops.full((*Q.shape[:-1], 1), float("-inf"), dtype=work)
    scale = 1.0 / math.sqrt(Q.shape[-1])
    for j in range(0, n_k, block_k):
        k, v = k_all[..., j:j + block_k, :], v_all[..., j:j + block_k, :]
        for i in range(0, n_q, block_q):
            end = min(i + block_q, n_q)
            if is_causal and j > end - 1 + shift:
                continue  # this key tile is in every query's future
            s = ops.matmul(q_all[..., i:end, :], k.swapaxes(-2, -1)) * scale  # (..., bq, bk)
            if is_causal:
                qi = ops.arange(i, end).reshape(-1, 1) + shift
                kj = ops.arange(j, j + k.shape[-2]).reshape(1, -1)
                s = ops.masked_fill(s, kj > qi, float("-inf"))
            m_tile = s.max(axis=-1, keepdims=True)
            p = ops.exp(s - ops.where(m_tile == float("-inf"), ops.zeros_like(m_tile), m_tile))
            l_tile = p.sum(axis=-1, keepdims=True)
            m_old, l_old = m[..., i:end, :], l[..., i:end, :]
            m_new = ops.maximum(m_old, m_tile)
            a = ops.exp(m_old - m_new)  # the stored statistics'
            b = ops.exp(m_tile - m_new)  # this tile's
            l_new = a * l_old + b * l_tile
            O[..., i:end, :] = (l_old * a * O[..., i:end, :] + b * ops.matmul(p, v)) / l_new
            l[..., i:end, :] = l_new
            m[..., i:end, :] = m_new
    return O.astype(Q.dtype), (m + ops.log(l)).squeeze(-1).astype(mindspore.float32)
