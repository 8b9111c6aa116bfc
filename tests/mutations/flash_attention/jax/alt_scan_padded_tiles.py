"""JAX's own idiom for a loop over tiles: pad K and V with zeros up to whole tiles, reshape them into
(tiles, block_k, d) and run the online softmax with jax.lax.scan (one compiled step for every tile); the
padding keys are masked like future ones. Causal key tiles after the query tile are masked, not skipped
(the scan visits every tile): the same result."""

import math

import jax
import jax.numpy as jnp


def run_flash_attention(Q, K, V, is_causal=False, block_q=16, block_k=16):
    work = jnp.promote_types(Q.dtype, jnp.float32)
    n_q, n_k, d_k = Q.shape[-2], K.shape[-2], Q.shape[-1]
    offset = n_k - n_q if is_causal else 0
    n_tiles = -(-n_k // block_k)
    pad = [(0, 0)] * (K.ndim - 2) + [(0, n_tiles * block_k - n_k), (0, 0)]
    k_tiles = jnp.moveaxis(jnp.pad(K.astype(work), pad).reshape(
        *K.shape[:-2], n_tiles, block_k, d_k), -3, 0)  # (tiles, ..., block_k, d_k)
    v_tiles = jnp.moveaxis(jnp.pad(V.astype(work), pad).reshape(
        *V.shape[:-2], n_tiles, block_k, V.shape[-1]), -3, 0)  # (tiles, ..., block_k, d_v)
    starts = jnp.arange(n_tiles) * block_k
    outputs, lses = [], []
    for q_start in range(0, n_q, block_q):
        q = Q[..., q_start:q_start + block_q, :].astype(work)
        rows = jnp.arange(q.shape[-2])[:, None] + q_start + offset

        def step(carry, tile):
            m, l, acc = carry
            k, v, start = tile
            s = q @ jnp.swapaxes(k, -1, -2) / math.sqrt(d_k)
            cols = jnp.arange(block_k)[None, :] + start
            hidden = (cols > rows) | (cols >= n_k) if is_causal else cols >= n_k  # future or padding
            s = jnp.where(hidden, -jnp.inf, s)
            m_new = jnp.maximum(m, s.max(-1, keepdims=True))
            p = jnp.exp(s - m_new)
            scale = jnp.exp(m - m_new)
            return (m_new, l * scale + p.sum(-1, keepdims=True), acc * scale + p @ v), None

        m0 = jnp.full((*q.shape[:-1], 1), -jnp.inf, dtype=work)
        acc0 = jnp.zeros((*q.shape[:-1], V.shape[-1]), dtype=work)
        (m, l, acc), _ = jax.lax.scan(step, (m0, jnp.zeros_like(m0), acc0), (k_tiles, v_tiles, starts))
        outputs.append(acc / l)
        lses.append((m + jnp.log(l))[..., 0])
    return jnp.concatenate(outputs, -2).astype(Q.dtype), jnp.concatenate(lses, -1).astype(jnp.float32)
