"""Always rotates at positions 0 .. seq − 1, ignoring token_positions."""

import math

import torch

DIAGNOSIS = "positions_ignored"
# it also computes in float32 (`.float()`) and casts back: on the float64 case that is what shows
ALSO_DIAGNOSED = ("float32_precision",)


def rope(x, positions, theta):
    d = x.shape[-1]
    angles = positions.to(x.dtype).unsqueeze(-1) * theta ** (-torch.arange(0, d, 2, dtype=x.dtype, device=x.device) / d)
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack((even * angles.cos() - odd * angles.sin(), even * angles.sin() + odd * angles.cos()), -1).flatten(-2)


def run_latent_attention(d_model, num_heads, d_nope, d_rope, theta, q_proj_weight, kv_down_proj_weight,
                         kv_up_proj_weight, o_proj_weight, in_features, token_positions=None):
    x = in_features.float()
    b_s = x.shape[:-1]
    seq = x.shape[-2]
    d_latent = kv_up_proj_weight.shape[1]
    d_v = kv_up_proj_weight.shape[0] // num_heads - d_nope
    positions = torch.arange(seq, device=x.device)  # token_positions: "the default is fine"
    q = (x @ q_proj_weight.float().T).view(*b_s, num_heads, d_nope + d_rope).transpose(-3, -2)
    q_nope, q_rope = q[..., :d_nope], q[..., d_nope:]
    latent, k_rope = (x @ kv_down_proj_weight.float().T).split([d_latent, d_rope], dim=-1)
    kv = (latent @ kv_up_proj_weight.float().T).view(*b_s, num_heads, d_nope + d_v).transpose(-3, -2)
    k_nope, v = kv[..., :d_nope], kv[..., d_nope:]
    q_rope = rope(q_rope, positions.unsqueeze(-2), theta)
    k_rope = rope(k_rope, positions, theta).unsqueeze(-3)
    scores = (q_nope @ k_nope.transpose(-2, -1) + q_rope @ k_rope.transpose(-2, -1)) / math.sqrt(d_nope + d_rope)
    scores = scores.masked_fill(torch.ones(seq, seq, dtype=torch.bool, device=x.device).triu(1), float("-inf"))
    out = (scores.softmax(-1) @ v).transpose(-3, -2).flatten(-2)
    return (out @ o_proj_weight.float().T).to(in_features.dtype)
