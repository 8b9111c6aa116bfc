"""jax.jit with the sizes static (static_argnames: a Python loop over heads needs num_heads when tracing): head h
takes columns h*d_k .. (h+1)*d_k - 1 of the projections, the heads are concatenated in order, then W_o. Float32
inside for bfloat16, cast back."""

import math
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("d_model", "num_heads"))
def run_multihead_self_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                                 in_features, o_proj_bias=None):
    work = jnp.promote_types(in_features.dtype, jnp.float32)
    x = in_features.astype(work)
    q, k, v = (x @ w.astype(work).T for w in (q_proj_weight, k_proj_weight, v_proj_weight))
    seq, d_k = x.shape[-2], d_model // num_heads
    causal = jnp.tril(jnp.ones((seq, seq), dtype=bool))
    heads = []
    for h in range(num_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        scores = jnp.where(causal, q[..., cols] @ jnp.swapaxes(k[..., cols], -1, -2) / math.sqrt(d_k), -jnp.inf)
        heads.append(jax.nn.softmax(scores, axis=-1) @ v[..., cols])
    out = jnp.concatenate(heads, axis=-1) @ o_proj_weight.astype(work).T
    if o_proj_bias is not None:
        out = out + o_proj_bias.astype(work)
    return out.astype(in_features.dtype)
