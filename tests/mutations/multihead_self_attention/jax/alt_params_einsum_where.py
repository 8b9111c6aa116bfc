"""A params dict and jnp.einsum with a named head axis: projections reshaped to (..., seq, heads, d_k) and never
transposed, "...qhd,...khd->...hqk" for the scores, jax.nn.softmax with the causal mask as `where=`, and
"...hqk,...khd->...qhd" to put the heads back side by side before W_o (and its bias when given)."""

import math

import jax
import jax.numpy as jnp


def mha(params, x, num_heads):
    *lead, seq, _ = x.shape
    d_model = params["W_o"].shape[0]
    d_k = d_model // num_heads
    q, k, v = (jnp.einsum("...si,oi->...so", x, params[n]).reshape(*lead, seq, num_heads, d_k)
               for n in ("W_q", "W_k", "W_v"))
    scores = jnp.einsum("...qhd,...khd->...hqk", q, k) / math.sqrt(d_k)
    weights = jax.nn.softmax(scores, axis=-1, where=jnp.tri(seq, dtype=bool))
    context = jnp.einsum("...hqk,...khd->...qhd", weights, v).reshape(*lead, seq, d_model)
    out = context @ params["W_o"].T
    return out if params.get("b_o") is None else out + params["b_o"]


def run_multihead_self_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                                 in_features, o_proj_bias=None):
    params = {"W_q": q_proj_weight, "W_k": k_proj_weight, "W_v": v_proj_weight, "W_o": o_proj_weight,
              "b_o": o_proj_bias}
    return mha(params, in_features, num_heads)
