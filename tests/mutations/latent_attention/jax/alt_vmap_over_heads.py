"""jax.vmap over heads: each head's weights are stacked along a leading axis and one function attends for a
single head; the shared rotary key and the latent are computed once outside."""

import jax
import jax.numpy as jnp

DIAGNOSIS = None


def _rope(t, positions, theta):
    d = t.shape[-1]
    angles = positions.astype(t.dtype)[..., None] * theta ** (-jnp.arange(0, d, 2, dtype=t.dtype) / d)
    a, b = t[..., 0::2], t[..., 1::2]
    return jnp.stack((a * jnp.cos(angles) - b * jnp.sin(angles), a * jnp.sin(angles) + b * jnp.cos(angles)),
                     axis=-1).reshape(t.shape)


def run_latent_attention(d_model, num_heads, d_nope, d_rope, theta, q_proj_weight, kv_down_proj_weight,
                         kv_up_proj_weight, o_proj_weight, in_features, token_positions=None):
    work = jnp.promote_types(in_features.dtype, jnp.float32)
    x = in_features.astype(work)
    seq = x.shape[-2]
    d_latent = kv_up_proj_weight.shape[1]
    d_v = kv_up_proj_weight.shape[0] // num_heads - d_nope
    positions = jnp.arange(seq) if token_positions is None else token_positions
    down = x @ kv_down_proj_weight.astype(work).T
    latent, k_rope = down[..., :d_latent], _rope(down[..., d_latent:], positions, theta)
    allowed = jnp.tril(jnp.ones((seq, seq), dtype=bool))

    def head(w_q, w_up, w_o):  # (dn + dr, d_model), (dn + d_v, d_latent), (d_model, d_v)
        q = x @ w_q.T
        up = latent @ w_up.T
        scores = (q[..., :d_nope] @ jnp.swapaxes(up[..., :d_nope], -1, -2)
                  + _rope(q[..., d_nope:], positions, theta) @ jnp.swapaxes(k_rope, -1, -2))
        weights = jax.nn.softmax(jnp.where(allowed, scores / jnp.sqrt(d_nope + d_rope), -jnp.inf), axis=-1)
        return (weights @ up[..., d_nope:]) @ w_o.T  # (..., seq, d_model)

    per_head = jax.vmap(head)(q_proj_weight.astype(work).reshape(num_heads, d_nope + d_rope, d_model),
                              kv_up_proj_weight.astype(work).reshape(num_heads, d_nope + d_v, d_latent),
                              jnp.moveaxis(o_proj_weight.astype(work).reshape(d_model, num_heads, d_v), 1, 0))
    return per_head.sum(axis=0).astype(in_features.dtype)
