"""DeepSeek-V2's decode form in NumPy (float64): W_UK absorbed into each head's query so the scores are taken
against the latents, and W_UV absorbed into the output projection."""

import numpy as np

DIAGNOSIS = None


def _rope(t, positions, theta):
    d = t.shape[-1]
    angles = positions.astype(np.float64)[..., None] * theta ** (-np.arange(0, d, 2) / d)
    a, b = t[..., 0::2], t[..., 1::2]
    out = np.empty_like(t)
    out[..., 0::2] = a * np.cos(angles) - b * np.sin(angles)
    out[..., 1::2] = a * np.sin(angles) + b * np.cos(angles)
    return out


def run_latent_attention(d_model, num_heads, d_nope, d_rope, theta, q_proj_weight, kv_down_proj_weight,
                         kv_up_proj_weight, o_proj_weight, in_features, token_positions=None):
    x = in_features.astype(np.float64)
    seq = x.shape[-2]
    d_latent = kv_up_proj_weight.shape[1]
    d_v = kv_up_proj_weight.shape[0] // num_heads - d_nope
    positions = np.arange(seq) if token_positions is None else token_positions
    w_up = kv_up_proj_weight.astype(np.float64).reshape(num_heads, d_nope + d_v, d_latent)
    w_o = o_proj_weight.astype(np.float64).reshape(d_model, num_heads, d_v)
    q = (x @ q_proj_weight.astype(np.float64).T).reshape(*x.shape[:-1], num_heads, d_nope + d_rope)
    q_latent = np.einsum("...shn,hnc->...hsc", q[..., :d_nope], w_up[:, :d_nope])
    q_rope = _rope(np.moveaxis(q[..., d_nope:], -2, -3), positions[..., None, :], theta)  # (..., h, s, dr)
    down = x @ kv_down_proj_weight.astype(np.float64).T
    c, k_rope = down[..., :d_latent], _rope(down[..., d_latent:], positions, theta)
    scores = np.einsum("...hsc,...tc->...hst", q_latent, c) + np.einsum("...hsr,...tr->...hst", q_rope, k_rope)
    scores = np.where(np.tril(np.ones((seq, seq), dtype=bool)), scores / np.sqrt(d_nope + d_rope), -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    mixed = np.einsum("...hst,...tc->...hsc", weights, c)
    w_out = np.einsum("mhv,hvc->hcm", w_o, w_up[:, d_nope:])
    return np.einsum("...hsc,hcm->...sm", mixed, w_out).astype(in_features.dtype)
