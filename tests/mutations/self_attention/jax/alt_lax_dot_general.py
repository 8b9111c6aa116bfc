"""The jax.lax family instead of jnp: every product is jax.lax.dot_general with explicit contracting and batch
dimensions (the leading axes flattened into one batch axis), the softmax with lax.reduce_max, lax.exp,
lax.reduce_sum and lax.div. Float32 accumulation (preferred_element_type) for bfloat16, float64 for float64."""

import math

import jax.numpy as jnp
from jax import lax


def _linear(x, weight, bias, work):
    # x (B, S, d_in) . weight (d_out, d_in): contract x's axis 2 with weight's axis 1
    out = lax.dot_general(x, weight, (((2,), (1,)), ((), ())), preferred_element_type=work)
    return out if bias is None else out + bias.astype(work)


def run_self_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features, q_proj_bias=None,
                       k_proj_bias=None, v_proj_bias=None):
    work = jnp.promote_types(in_features.dtype, jnp.float32)
    seq = in_features.shape[-2]
    x = in_features.reshape(-1, seq, d_in)
    q = _linear(x, q_proj_weight, q_proj_bias, work)
    k = _linear(x, k_proj_weight, k_proj_bias, work)
    v = _linear(x, v_proj_weight, v_proj_bias, work)
    scores = lax.dot_general(q, k, (((2,), (2,)), ((0,), (0,)))) / math.sqrt(d_out)  # (B, S, S)
    e = lax.exp(scores - lax.reduce_max(scores, (2,))[..., None])
    weights = lax.div(e, lax.broadcast_in_dim(lax.reduce_sum(e, (2,)), e.shape, (0, 1)))
    out = lax.dot_general(weights, v, (((2,), (1,)), ((0,), (0,))))  # (B, S, d_out)
    return out.reshape(*in_features.shape[:-1], d_out).astype(in_features.dtype)
