"""Two jax.vmaps instead of batched reshapes: attention is written for one head of one sequence ((T, hs) arrays),
vmapped over the head axis of (nh, T, hs), and the whole block, written for one (T, C) sequence, is vmapped over
the flattened leading axes. Float32 inside for bfloat16, cast back."""

import math

import jax
import jax.numpy as jnp


def _head(q, k, v):  # (T, hs) each
    T = q.shape[0]
    att = jnp.where(jnp.tri(T, dtype=bool), q @ k.T / math.sqrt(q.shape[1]), -jnp.inf)
    return jax.nn.softmax(att, axis=-1) @ v


def _block(x, w_attn, b_attn, w_proj, b_proj, n_head):  # x: (T, C)
    T, C = x.shape
    qkv = x @ w_attn.T + b_attn  # (T, 3C)
    q, k, v = (qkv[:, i * C:(i + 1) * C].reshape(T, n_head, C // n_head).swapaxes(0, 1) for i in range(3))
    y = jax.vmap(_head)(q, k, v)  # (nh, T, hs)
    return y.swapaxes(0, 1).reshape(T, C) @ w_proj.T + b_proj


def run_gpt2_causal_self_attention(n_embd, n_head, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias,
                                   in_features):
    work = jnp.promote_types(in_features.dtype, jnp.float32)
    weights = [a.astype(work) for a in (c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias)]
    x = in_features.astype(work).reshape(-1, *in_features.shape[-2:])
    out = jax.vmap(lambda seq: _block(seq, *weights, n_head))(x)
    return out.reshape(in_features.shape).astype(in_features.dtype)
