"""DeepSeek-V2's decode form in JAX: W_UK absorbed into each head's query (scores against the latents) and
W_UV into the output projection, all in einsum."""

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
    w_up = kv_up_proj_weight.astype(work).reshape(num_heads, d_nope + d_v, d_latent)
    w_o = o_proj_weight.astype(work).reshape(d_model, num_heads, d_v)
    q = (x @ q_proj_weight.astype(work).T).reshape(*x.shape[:-1], num_heads, d_nope + d_rope)
    q_latent = jnp.einsum("...shn,hnc->...hsc", q[..., :d_nope], w_up[:, :d_nope])
    q_rope = _rope(jnp.moveaxis(q[..., d_nope:], -2, -3), positions[..., None, :], theta)
    down = x @ kv_down_proj_weight.astype(work).T
    c, k_rope = down[..., :d_latent], _rope(down[..., d_latent:], positions, theta)
    scores = jnp.einsum("...hsc,...tc->...hst", q_latent, c) + jnp.einsum("...hsr,...tr->...hst", q_rope, k_rope)
    scores = jnp.where(jnp.tril(jnp.ones((seq, seq), dtype=bool)), scores / jnp.sqrt(d_nope + d_rope), -jnp.inf)
    mixed = jnp.einsum("...hst,...tc->...hsc", jax.nn.softmax(scores, axis=-1), c)
    w_out = jnp.einsum("mhv,hvc->hcm", w_o, w_up[:, d_nope:])
    return jnp.einsum("...hsc,hcm->...sm", mixed, w_out).astype(in_features.dtype)
