"""Written for one example (a (T_dec, d) decoder sequence, a (T_enc, d) encoder sequence and its (T_enc,) padding
mask) and jax.vmap'ed over the flattened leading axes (none at all gives one example); inside, the heads are a
reshape to (heads, T, d_head). A params dict holds the four weights."""

import math

import jax
import jax.numpy as jnp


def _cross_attention(params, dec, enc, real, num_heads):
    def heads(x):
        return x.reshape(x.shape[0], num_heads, -1).swapaxes(0, 1)  # (heads, T, d_head)

    q, k, v = heads(dec @ params["q"].T), heads(enc @ params["k"].T), heads(enc @ params["v"].T)
    scores = q @ k.swapaxes(-1, -2) / math.sqrt(q.shape[-1])  # (heads, T_dec, T_enc)
    scores = jnp.where(real[None, None, :], scores, -jnp.inf)
    context = jax.nn.softmax(scores, axis=-1) @ v
    return context.swapaxes(0, 1).reshape(dec.shape[0], -1) @ params["o"].T


def run_cross_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                        decoder_states, encoder_states, encoder_padding_mask):
    params = {"q": q_proj_weight, "k": k_proj_weight, "v": v_proj_weight, "o": o_proj_weight}
    lead = decoder_states.shape[:-2]
    dec = decoder_states.reshape(-1, *decoder_states.shape[-2:])
    enc = encoder_states.reshape(-1, *encoder_states.shape[-2:])
    real = encoder_padding_mask.reshape(-1, encoder_padding_mask.shape[-1])
    out = jax.vmap(_cross_attention, in_axes=(None, 0, 0, 0, None))(params, dec, enc, real, num_heads)
    return out.reshape(*lead, *out.shape[-2:])
