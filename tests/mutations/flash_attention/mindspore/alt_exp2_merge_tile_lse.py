"""Tiles summarised by their own log-sum-exp and merged, in base 2 as FlashAttention's kernels do: scores are
scaled by log2(e)/√d_k so that `ops.exp2` replaces exp, each key tile gives its normalised output o_t and its
lse_t (base 2), and the running pair (o, lse) absorbs it as lse' = log2(2^lse + 2^lse_t),
o' = o·2^(lse − lse') + o_t·2^(lse_t − lse'); L is the base-2 lse times ln 2. Correct: 2^(x·log2 e) = e^x,
merging normalised tiles by their lse is the online softmax, and a causal tile with no visible key is skipped."""

import math

import mindspore
from mindspore import ops

LOG2_E = 1.0 / math.log(2.0)


def _merge(o, lse, o_tile, lse_tile):
    new = ops.maximum(lse, lse_tile) + ops.log2(ops.exp2(lse - ops.maximum(lse, lse_tile))
                                                + ops.exp2(lse_tile - ops.maximum(lse, lse_tile)))
    return o * ops.exp2(lse - new) + o_tile * ops.exp2(lse_tile - new), new


def run_flash_attention(Q, K, V, is_causal=False, block_q=16, block_k=16):
    work = mindspore.float64 if Q.dtype == mindspore.float64 else mindspore.float32
    q, k, v = Q.astype(work), K.astype(work), V.astype(work)
    n_q, n_k = q.shape[-2], k.shape[-2]
    shift = n_k - n_q if is_causal else 0
    scale = LOG2_E / math.sqrt(q.shape[-1])
    outs, lses = [], []
    for i in range(0, n_q, block_q):
        q_tile = q[..., i:i + block_q, :]
        rows = q_tile.shape[-2]
        o = ops.zeros((*q_tile.shape[:-1], v.shape[-1]), work)
        lse = ops.full((*q_tile.shape[:-1], 1), float("-inf"), dtype=work)
        for j in range(0, n_k, block_k):
            if is_causal and j > i + rows - 1 + shift:
                break  # this and every later key tile are in the future of the whole query tile
            s = ops.matmul(q_tile, k[..., j:j + block_k, :].swapaxes(-2, -1)) * scale  # base-2 scores
            if is_causal:
                future = ops.arange(j, j + s.shape[-1]).reshape(1, -1) > ops.arange(i, i + rows).reshape(-1, 1) + shift
                s = ops.masked_fill(s, future, float("-inf"))
            m_tile = s.max(axis=-1, keepdims=True)
            m_tile = ops.where(m_tile == float("-inf"), ops.zeros_like(m_tile), m_tile)  # a row with no key here
            p = ops.exp2(s - m_tile)
            l_tile = p.sum(axis=-1, keepdims=True)
            o_tile = ops.matmul(p, v[..., j:j + block_k, :]) / ops.maximum(l_tile, ops.full_like(l_tile, 1e-30))
            o, lse = _merge(o, lse, o_tile, m_tile + ops.log2(l_tile))
        outs.append(o)
        lses.append(lse)
    L = ops.cat(lses, axis=-2).squeeze(-1) * math.log(2.0)
    return ops.cat(outs, axis=-2).astype(Q.dtype), L.astype(mindspore.float32)
