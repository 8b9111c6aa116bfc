"""Builds MLA's queries, keys and values correctly (the rotary key repeated per head and concatenated to each
head's key), then hands them to PyTorch's fused attention: the values are right, but the exercise forbids it."""

import torch
import torch.nn.functional as F

DIAGNOSIS = None


def run_latent_attention(d_model, num_heads, d_nope, d_rope, theta, q_proj_weight, kv_down_proj_weight,
                         kv_up_proj_weight, o_proj_weight, in_features, token_positions=None):
    x = in_features.float()
    lead, seq = x.shape[:-1], x.shape[-2]
    d_latent = kv_up_proj_weight.shape[1]
    d_v = kv_up_proj_weight.shape[0] // num_heads - d_nope
    positions = torch.arange(seq) if token_positions is None else token_positions
    angles = positions.float().unsqueeze(-1) * theta ** (-torch.arange(0, d_rope, 2).float() / d_rope)

    def rope(t):
        even, odd = t[..., 0::2], t[..., 1::2]
        return torch.stack((even * angles.cos() - odd * angles.sin(), even * angles.sin() + odd * angles.cos()),
                           -1).flatten(-2)

    q = (x @ q_proj_weight.float().T).view(*lead, num_heads, d_nope + d_rope)
    q = torch.cat([q[..., :d_nope], rope(q[..., d_nope:].transpose(-3, -2)).transpose(-3, -2)], -1).transpose(-3, -2)
    latent, k_rope = (x @ kv_down_proj_weight.float().T).split([d_latent, d_rope], dim=-1)
    kv = (latent @ kv_up_proj_weight.float().T).view(*lead, num_heads, d_nope + d_v).transpose(-3, -2)
    k_rope = rope(k_rope).unsqueeze(-3).expand(*kv.shape[:-1], d_rope)
    k = torch.cat([kv[..., :d_nope], k_rope], dim=-1)
    out = F.scaled_dot_product_attention(q, k, kv[..., d_nope:], is_causal=True)
    return (out.transpose(-3, -2).flatten(-2) @ o_proj_weight.float().T).to(in_features.dtype)
