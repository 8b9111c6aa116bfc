"""Translated nanoGPT's `q, k, v = qkv.split(n_embd, dim=2)` to jnp.split(qkv, n_embd, axis=-1). torch's
split takes the SIZE of each chunk; jnp.split (like np.split) takes the NUMBER of sections, so this makes
n_embd pieces of 3 columns and the unpacking fails (it is jnp.split(qkv, 3, axis=-1))."""

import math

import jax
import jax.numpy as jnp

DIAGNOSIS = None  # it raises


def run_gpt2_causal_self_attention(n_embd, n_head, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias,
                                   in_features):
    *batch, T, C = in_features.shape
    q, k, v = jnp.split(in_features @ c_attn_weight.T + c_attn_bias, n_embd, axis=-1)
    q, k, v = (jnp.swapaxes(x.reshape(*batch, T, n_head, C // n_head), -3, -2) for x in (q, k, v))
    att = q @ jnp.swapaxes(k, -1, -2) / math.sqrt(C // n_head)
    att = jnp.where(jnp.tril(jnp.ones((T, T), dtype=bool)), att, -jnp.inf)
    y = jax.nn.softmax(att, axis=-1) @ v
    y = jnp.swapaxes(y, -3, -2).reshape(*batch, T, C)
    return y @ c_proj_weight.T + c_proj_bias
