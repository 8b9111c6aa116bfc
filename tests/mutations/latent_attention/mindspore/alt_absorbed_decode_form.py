"""DeepSeek-V2's decode form in MindSpore: W_UK absorbed into each head's query (scores against the cached
latents) and W_UV into the output projection; batched matmuls over heads, no einsum (no CPU kernel)."""

import mindspore
from mindspore import nn, ops

DIAGNOSIS = None


def _rope(t, positions, theta):
    d = t.shape[-1]
    angles = positions.astype(t.dtype)[..., None] * ops.pow(theta, -ops.arange(0, d, 2, dtype=t.dtype) / d)
    a, b = t[..., 0::2], t[..., 1::2]
    cos, sin = ops.cos(angles), ops.sin(angles)
    return ops.stack((a * cos - b * sin, a * sin + b * cos), axis=-1).reshape(t.shape)


def run_latent_attention(d_model, num_heads, d_nope, d_rope, theta, q_proj_weight, kv_down_proj_weight,
                         kv_up_proj_weight, o_proj_weight, in_features, token_positions=None):
    x = in_features
    seq = x.shape[-2]
    d_latent = kv_up_proj_weight.shape[1]
    d_v = kv_up_proj_weight.shape[0] // num_heads - d_nope
    positions = ops.arange(seq) if token_positions is None else token_positions
    w_up = kv_up_proj_weight.reshape(num_heads, d_nope + d_v, d_latent)
    w_uk, w_uv = w_up[:, :d_nope], w_up[:, d_nope:]  # (h, d_nope, c), (h, d_v, c)
    q = ops.matmul(x, q_proj_weight.T).reshape(*x.shape[:-1], num_heads, d_nope + d_rope).swapaxes(-3, -2)
    q_latent = ops.matmul(q[..., :d_nope], w_uk)  # (..., h, s, c): the query meets the latent directly
    q_rope = _rope(q[..., d_nope:], positions[..., None, :], theta)
    down = ops.matmul(x, kv_down_proj_weight.T)
    c = down[..., :d_latent][..., None, :, :]  # (..., 1, t, c): one latent for every head
    k_rope = _rope(down[..., d_latent:], positions, theta)[..., None, :, :]
    scores = ops.matmul(q_latent, c.swapaxes(-2, -1)) + ops.matmul(q_rope, k_rope.swapaxes(-2, -1))
    allowed = ops.tril(ops.ones((seq, seq), mindspore.bool_))
    scores = ops.masked_fill(scores / (d_nope + d_rope) ** 0.5, ~allowed, float("-inf"))
    mixed = ops.matmul(nn.Softmax(axis=-1)(scores), c)  # (..., h, s, c)
    w_o = o_proj_weight.reshape(d_model, num_heads, d_v).transpose(1, 2, 0)  # (h, d_v, d_model)
    w_out = ops.matmul(w_uv.swapaxes(-2, -1), w_o)  # (h, c, d_model): W_UV absorbed into W_O
    return ops.matmul(mixed, w_out).sum(axis=-3)  # (..., s, d_model)

