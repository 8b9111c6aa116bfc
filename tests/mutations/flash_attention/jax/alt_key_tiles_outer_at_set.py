"""FlashAttention-1's loop order in plain Python over jnp arrays: key tiles outer, query tiles inner, O, l and m
held as full-length arrays and updated with .at[...].set(...) (assigned back: arrays are immutable); O is kept
normalised (rescaled by l_old·e^{m_old − m_new} / l_new at every tile). Causal: query tiles entirely before a key
tile are skipped. Float32 inside (float64 for float64 inputs)."""

import math

import jax.numpy as jnp


def run_flash_attention(Q, K, V, is_causal=False, block_q=16, block_k=16):
    work = jnp.promote_types(Q.dtype, jnp.float32)
    q, k, v = Q.astype(work), K.astype(work), V.astype(work)
    n_q, n_k = q.shape[-2], k.shape[-2]
    shift = n_k - n_q if is_causal else 0
    scale = 1.0 / math.sqrt(q.shape[-1])
    O = jnp.zeros((*q.shape[:-1], v.shape[-1]), dtype=work)
    l = jnp.zeros((*q.shape[:-1], 1), dtype=work)
    m = jnp.full((*q.shape[:-1], 1), -jnp.inf, dtype=work)
    for j in range(0, n_k, block_k):
        k_j, v_j = k[..., j:j + block_k, :], v[..., j:j + block_k, :]
        for i in range(0, n_q, block_q):
            last_row = min(i + block_q, n_q) - 1 + shift
            if is_causal and j > last_row:
                continue
            s = q[..., i:i + block_q, :] @ jnp.swapaxes(k_j, -1, -2) * scale
            if is_causal:
                rows = jnp.arange(i, min(i + block_q, n_q))[:, None] + shift
                s = jnp.where(jnp.arange(j, j + s.shape[-1])[None, :] > rows, -jnp.inf, s)
            m_old, l_old = m[..., i:i + block_q, :], l[..., i:i + block_q, :]
            m_new = jnp.maximum(m_old, s.max(axis=-1, keepdims=True))
            p = jnp.exp(s - m_new)
            l_new = l_old * jnp.exp(m_old - m_new) + p.sum(axis=-1, keepdims=True)
            o_new = (O[..., i:i + block_q, :] * l_old * jnp.exp(m_old - m_new) + p @ v_j) / l_new
            O = O.at[..., i:i + block_q, :].set(o_new)
            l = l.at[..., i:i + block_q, :].set(l_new)
            m = m.at[..., i:i + block_q, :].set(m_new)
    return O.astype(Q.dtype), (m + jnp.log(l))[..., 0].astype(jnp.float32)
