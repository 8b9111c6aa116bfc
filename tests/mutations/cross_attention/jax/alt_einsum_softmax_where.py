"""jnp.einsum with named axes ((..., T, heads, d_head), never transposed) and the padding mask given to
jax.nn.softmax as `where=` (shaped (..., 1, 1, T_enc) to broadcast over heads and decoder positions): padding keys
get weight exactly 0. Float32 inside for bfloat16, cast back."""

import math

import jax
import jax.numpy as jnp


def run_cross_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                        decoder_states, encoder_states, encoder_padding_mask):
    work = jnp.promote_types(decoder_states.dtype, jnp.float32)
    d_head = d_model // num_heads

    def project(x, w):
        out = jnp.einsum("...ti,oi->...to", x.astype(work), w.astype(work))
        return out.reshape(*out.shape[:-1], num_heads, d_head)

    q = project(decoder_states, q_proj_weight)
    k = project(encoder_states, k_proj_weight)
    v = project(encoder_states, v_proj_weight)
    scores = jnp.einsum("...qhd,...khd->...hqk", q, k) / math.sqrt(d_head)
    weights = jax.nn.softmax(scores, axis=-1, where=encoder_padding_mask[..., None, None, :])
    context = jnp.einsum("...hqk,...khd->...qhd", weights, v).reshape(*q.shape[:-2], d_model)
    return jnp.einsum("...to,po->...tp", context, o_proj_weight.astype(work)).astype(decoder_states.dtype)
