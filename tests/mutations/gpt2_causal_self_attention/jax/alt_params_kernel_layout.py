"""nanoGPT's block as a JAX pure function of a Flax-style params tree: {"c_attn": {"kernel", "bias"},
"c_proj": {...}} with kernels in (in, out) layout (the transposes of the weights given, as GPT-2's original
Conv1D stores them), so a dense layer is x @ kernel + bias; the leading axes are flattened into B and the heads
handled as (B, nh, T, hs) arrays with jnp.transpose and a full permutation."""

import math

import jax
import jax.numpy as jnp


def dense(params, x):
    return x @ params["kernel"] + params["bias"]


def causal_self_attention(params, x, n_head):
    B, T, C = x.shape
    q, k, v = jnp.split(dense(params["c_attn"], x), 3, axis=2)
    hs = C // n_head
    q, k, v = (t.reshape(B, T, n_head, hs).transpose(0, 2, 1, 3) for t in (q, k, v))  # (B, nh, T, hs)
    att = (q @ k.transpose(0, 1, 3, 2)) * (1.0 / math.sqrt(hs))
    att = jnp.where(jnp.tril(jnp.ones((T, T), dtype=bool)), att, -jnp.inf)
    y = jax.nn.softmax(att, axis=-1) @ v  # (B, nh, T, hs)
    y = y.transpose(0, 2, 1, 3).reshape(B, T, C)
    return dense(params["c_proj"], y)


def run_gpt2_causal_self_attention(n_embd, n_head, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias,
                                   in_features):
    params = {"c_attn": {"kernel": c_attn_weight.T, "bias": c_attn_bias},
              "c_proj": {"kernel": c_proj_weight.T, "bias": c_proj_bias}}
    x = in_features.reshape(-1, *in_features.shape[-2:])
    return causal_self_attention(params, x, n_head).reshape(in_features.shape)
