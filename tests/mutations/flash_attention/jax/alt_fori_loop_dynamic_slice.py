"""The key tiles of each query tile visited by jax.lax.fori_loop: K and V are padded with zeros to whole tiles
(jax.lax.dynamic_slice_in_dim needs one static tile size and clamps a start past the end), each step slices its
tile at k_start = j * block_k, masks padding keys (and future keys when causal) and updates the online softmax
carried as (m, l, acc). Causal query tiles stop at their last visible tile (the trip count is a Python int)."""

import math

import jax.numpy as jnp
from jax import lax


def run_flash_attention(Q, K, V, is_causal=False, block_q=16, block_k=16):
    work = jnp.promote_types(Q.dtype, jnp.float32)
    n_q, n_k = Q.shape[-2], K.shape[-2]
    offset = n_k - n_q if is_causal else 0
    n_tiles = -(-n_k // block_k)
    pad = [(0, 0)] * (K.ndim - 2) + [(0, n_tiles * block_k - n_k), (0, 0)]
    k, v = jnp.pad(K.astype(work), pad), jnp.pad(V.astype(work), pad)
    scale = 1.0 / math.sqrt(Q.shape[-1])
    outs, lses = [], []
    for start in range(0, n_q, block_q):
        q = Q[..., start:start + block_q, :].astype(work)
        rows = jnp.arange(q.shape[-2])[:, None] + start + offset  # each query's position

        def body(j, carry, q=q, rows=rows):
            m, l, acc = carry
            k_tile = lax.dynamic_slice_in_dim(k, j * block_k, block_k, axis=k.ndim - 2)
            v_tile = lax.dynamic_slice_in_dim(v, j * block_k, block_k, axis=v.ndim - 2)
            cols = jnp.arange(block_k)[None, :] + j * block_k
            hidden = (cols >= n_k) | (cols > rows) if is_causal else (cols >= n_k)
            s = jnp.where(hidden, -jnp.inf, q @ jnp.swapaxes(k_tile, -1, -2) * scale)
            m_new = jnp.maximum(m, s.max(axis=-1, keepdims=True))
            p = jnp.exp(s - m_new)
            correction = jnp.exp(m - m_new)
            return m_new, l * correction + p.sum(axis=-1, keepdims=True), acc * correction + p @ v_tile

        last = min(n_k, start + q.shape[-2] + offset) if is_causal else n_k  # keys this tile can see
        m0 = jnp.full((*q.shape[:-1], 1), -jnp.inf, dtype=work)
        acc0 = jnp.zeros((*q.shape[:-1], V.shape[-1]), dtype=work)
        m, l, acc = lax.fori_loop(0, -(-last // block_k), body, (m0, jnp.zeros_like(m0), acc0))
        outs.append(acc / l)
        lses.append((m + jnp.log(l))[..., 0])
    return jnp.concatenate(outs, axis=-2).astype(Q.dtype), jnp.concatenate(lses, axis=-1).astype(jnp.float32)
