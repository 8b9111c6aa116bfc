"""A params dict and one function per head: RoPE and causal attention are written for a single head ((..., seq,
d_k) queries, keys, values) and jax.vmap'ed over the head axis of (..., heads, seq, d_k) (in_axes=-3), the
positions shared by every head (in_axes None). Float32 inside for bfloat16, cast back."""

import math

import jax
import jax.numpy as jnp


def _rope(x, positions, theta):
    d_k = x.shape[-1]
    angles = positions[..., None].astype(x.dtype) * theta ** (-jnp.arange(0, d_k, 2, dtype=x.dtype) / d_k)
    cos, sin = jnp.cos(angles), jnp.sin(angles)
    even, odd = x[..., 0::2], x[..., 1::2]
    return jnp.stack([even * cos - odd * sin, even * sin + odd * cos], axis=-1).reshape(
        jnp.broadcast_shapes(x.shape, cos.shape[:-1] + (d_k,)))


def _head(q, k, v, positions, theta):
    q, k = _rope(q, positions, theta), _rope(k, positions, theta)
    seq = q.shape[-2]
    scores = jnp.where(jnp.tri(seq, dtype=bool), q @ jnp.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1]), -jnp.inf)
    return jax.nn.softmax(scores, axis=-1) @ v


def run_multihead_self_attention_with_rope(d_model, num_heads, max_seq_len, theta, q_proj_weight, k_proj_weight,
                                           v_proj_weight, o_proj_weight, in_features, token_positions=None):
    work = jnp.promote_types(in_features.dtype, jnp.float32)
    params = {n: w.astype(work) for n, w in zip("qkvo", (q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight))}
    x = in_features.astype(work)
    *lead, seq, _ = x.shape
    positions = jnp.arange(seq) if token_positions is None else token_positions

    def heads(w):
        return jnp.swapaxes((x @ w.T).reshape(*lead, seq, num_heads, d_model // num_heads), -3, -2)

    y = jax.vmap(_head, in_axes=(-3, -3, -3, None, None), out_axes=-3)(
        heads(params["q"]), heads(params["k"]), heads(params["v"]), positions, theta)  # (..., heads, seq, d_k)
    y = jnp.swapaxes(y, -3, -2).reshape(*lead, seq, d_model)
    return (y @ params["o"].T).astype(in_features.dtype)
