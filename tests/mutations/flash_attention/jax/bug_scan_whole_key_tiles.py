"""Written the way JAX tutorials loop: reshape K and V into (tiles, block_k, d) and run the online softmax
with jax.lax.scan over the tiles (one compiled step for every tile). The reshape needs equal tiles, so the
keys are cut to n_keys // block_k whole tiles first: when block_k does not divide the number of keys, the
last, smaller tile is never visited and its keys get no weight."""

import math

import jax
import jax.numpy as jnp

DIAGNOSIS = "last_key_tile_dropped"


def run_flash_attention(Q, K, V, is_causal=False, block_q=16, block_k=16):
    work = jnp.promote_types(Q.dtype, jnp.float32)
    n_q, n_k, d_k = Q.shape[-2], K.shape[-2], Q.shape[-1]
    offset = n_k - n_q if is_causal else 0
    n_tiles = n_k // block_k
    k_tiles = jnp.moveaxis(K[..., :n_tiles * block_k, :].astype(work).reshape(
        *K.shape[:-2], n_tiles, block_k, d_k), -3, 0)  # (tiles, ..., block_k, d_k)
    v_tiles = jnp.moveaxis(V[..., :n_tiles * block_k, :].astype(work).reshape(
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
            if is_causal:
                s = jnp.where(jnp.arange(block_k)[None, :] + start > rows, -jnp.inf, s)
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
