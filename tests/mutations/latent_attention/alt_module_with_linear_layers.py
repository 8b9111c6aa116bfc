"""An nn.Module with nn.Linear layers whose weights are loaded from the arguments (as a model's checkpoint
would be), heads made with einops, RoPE as precomputed cos/sin tables."""

import math

import torch
from einops import rearrange
from torch import nn

DIAGNOSIS = None


class MultiHeadLatentAttention(nn.Module):
    def __init__(self, d_model, num_heads, d_nope, d_rope, d_latent, d_v, theta):
        super().__init__()
        self.h, self.dn, self.dr, self.dc, self.dv, self.theta = num_heads, d_nope, d_rope, d_latent, d_v, theta
        self.q_proj = nn.Linear(d_model, num_heads * (d_nope + d_rope), bias=False)
        self.kv_a_proj_with_mqa = nn.Linear(d_model, d_latent + d_rope, bias=False)
        self.kv_b_proj = nn.Linear(d_latent, num_heads * (d_nope + d_v), bias=False)
        self.o_proj = nn.Linear(num_heads * d_v, d_model, bias=False)

    def rotary(self, t, positions):
        inv_freq = 1.0 / self.theta ** (torch.arange(0, self.dr, 2, dtype=t.dtype) / self.dr)
        angles = positions.to(t.dtype)[..., None] * inv_freq
        cos, sin = angles.cos().repeat_interleave(2, -1), angles.sin().repeat_interleave(2, -1)
        swapped = torch.stack((-t[..., 1::2], t[..., 0::2]), dim=-1).flatten(-2)  # (-x1, x0, -x3, x2, ...)
        return t * cos + swapped * sin

    def forward(self, x, positions):
        seq = x.shape[-2]
        q = rearrange(self.q_proj(x), "... s (h d) -> ... h s d", h=self.h)
        c, k_pe = self.kv_a_proj_with_mqa(x).split([self.dc, self.dr], dim=-1)
        kv = rearrange(self.kv_b_proj(c), "... s (h d) -> ... h s d", h=self.h)
        k_nope, v = kv.split([self.dn, self.dv], dim=-1)
        q_nope, q_pe = q.split([self.dn, self.dr], dim=-1)
        q_pe = self.rotary(q_pe, positions.unsqueeze(-2))
        k_pe = self.rotary(k_pe, positions).unsqueeze(-3)
        scores = (q_nope @ k_nope.transpose(-1, -2) + q_pe @ k_pe.transpose(-1, -2)) / math.sqrt(self.dn + self.dr)
        mask = torch.full((seq, seq), float("-inf")).triu(1)
        out = (scores + mask).softmax(dim=-1) @ v
        return self.o_proj(rearrange(out, "... h s d -> ... s (h d)"))


def run_latent_attention(d_model, num_heads, d_nope, d_rope, theta, q_proj_weight, kv_down_proj_weight,
                         kv_up_proj_weight, o_proj_weight, in_features, token_positions=None):
    d_latent = kv_up_proj_weight.shape[1]
    d_v = kv_up_proj_weight.shape[0] // num_heads - d_nope
    work = torch.promote_types(in_features.dtype, torch.float32)
    module = MultiHeadLatentAttention(d_model, num_heads, d_nope, d_rope, d_latent, d_v, theta).to(work)
    module.load_state_dict({"q_proj.weight": q_proj_weight, "kv_a_proj_with_mqa.weight": kv_down_proj_weight,
                            "kv_b_proj.weight": kv_up_proj_weight, "o_proj.weight": o_proj_weight})
    positions = torch.arange(in_features.shape[-2]) if token_positions is None else token_positions
    return module(in_features.to(work), positions).to(in_features.dtype)
