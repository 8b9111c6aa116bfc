"""One head at a time in NumPy: slice each head's rows of W_q and W_up and its columns of W_o, attend, and
add the heads' contributions; RoPE with a cos/sin table and the (-x1, x0) pair swap."""

import numpy as np

DIAGNOSIS = None


def _rope(t, positions, theta):
    d = t.shape[-1]
    angles = np.repeat(positions[..., None] * theta ** (-np.arange(0, d, 2) / d), 2, axis=-1).astype(t.dtype)
    swapped = np.empty_like(t)
    swapped[..., 0::2], swapped[..., 1::2] = -t[..., 1::2], t[..., 0::2]
    return t * np.cos(angles) + swapped * np.sin(angles)


def run_latent_attention(d_model, num_heads, d_nope, d_rope, theta, q_proj_weight, kv_down_proj_weight,
                         kv_up_proj_weight, o_proj_weight, in_features, token_positions=None):
    work = np.promote_types(in_features.dtype, np.float32)
    x = in_features.astype(work)
    seq = x.shape[-2]
    d_latent = kv_up_proj_weight.shape[1]
    d_v = kv_up_proj_weight.shape[0] // num_heads - d_nope
    positions = np.arange(seq) if token_positions is None else token_positions
    down = x @ kv_down_proj_weight.astype(work).T
    latent, k_rope = down[..., :d_latent], _rope(down[..., d_latent:], positions, theta)
    future = np.triu(np.ones((seq, seq), dtype=bool), k=1)
    out = np.zeros((*x.shape[:-1], d_model), dtype=work)
    q_size, up_size = d_nope + d_rope, d_nope + d_v
    for h in range(num_heads):
        q = x @ q_proj_weight[h * q_size:(h + 1) * q_size].astype(work).T
        up = latent @ kv_up_proj_weight[h * up_size:(h + 1) * up_size].astype(work).T
        scores = (q[..., :d_nope] @ np.swapaxes(up[..., :d_nope], -1, -2)
                  + _rope(q[..., d_nope:], positions, theta) @ np.swapaxes(k_rope, -1, -2)) / np.sqrt(q_size)
        scores = np.where(future, -np.inf, scores)
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        weights = weights / weights.sum(axis=-1, keepdims=True)
        out += (weights @ up[..., d_nope:]) @ o_proj_weight[:, h * d_v:(h + 1) * d_v].astype(work).T
    return out.astype(in_features.dtype)
