"""A jax.jit-compiled pure function of a params dict (missing biases are None leaves, which jit passes through as
static structure); the causal mask is given to jax.nn.softmax as `where=` instead of -inf scores, so the future
keys get weight exactly 0."""

import math

import jax
import jax.numpy as jnp


@jax.jit
def causal_attention(params, x):
    def dense(name):
        out = x @ params[name]["w"].T
        return out if params[name]["b"] is None else out + params[name]["b"]

    q, k, v = dense("q"), dense("k"), dense("v")
    seq = x.shape[-2]
    scores = q @ jnp.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])
    weights = jax.nn.softmax(scores, axis=-1, where=jnp.tril(jnp.ones((seq, seq), dtype=bool)))
    return weights @ v


def run_causal_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features, q_proj_bias=None,
                         k_proj_bias=None, v_proj_bias=None):
    params = {"q": {"w": q_proj_weight, "b": q_proj_bias}, "k": {"w": k_proj_weight, "b": k_proj_bias},
              "v": {"w": v_proj_weight, "b": v_proj_bias}}
    return causal_attention(params, in_features)
