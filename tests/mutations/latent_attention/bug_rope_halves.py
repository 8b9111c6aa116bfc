"""Rotates with the rotate_half layout of HF Llama (x[i] with x[i + d/2]) instead of interleaved pairs."""

import math

import torch

DIAGNOSIS = "rope_halves"
# it also computes in float32 (`.float()`); the float64 case has d_rope = 2, where halves and interleaved
# pairs are the same rotation, so float32 precision is all that shows there
ALSO_DIAGNOSED = ("float32_precision",)


def rope(x, positions, theta):
    d = x.shape[-1]
    angles = positions.to(x.dtype).unsqueeze(-1) * theta ** (-torch.arange(0, d, 2, dtype=x.dtype, device=x.device) / d)
    a, b = x[..., : d // 2], x[..., d // 2:]
    return torch.cat((a * angles.cos() - b * angles.sin(), a * angles.sin() + b * angles.cos()), dim=-1)


def run_latent_attention(d_model, num_heads, d_nope, d_rope, theta, q_proj_weight, kv_down_proj_weight,
                         kv_up_proj_weight, o_proj_weight, in_features, token_positions=None):
    x = in_features.float()
    b_s = x.shape[:-1]
    seq = x.shape[-2]
    d_latent = kv_up_proj_weight.shape[1]
    d_v = kv_up_proj_weight.shape[0] // num_heads - d_nope
    positions = torch.arange(seq, device=x.device) if token_positions is None else token_positions
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
