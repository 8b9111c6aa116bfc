"""DeepSeek-V2's decode form, in float64: W_UK absorbed into each head's query (scores against the latents
themselves) and W_UV into the output projection; no per-head key or value is ever built."""

import math

import torch

DIAGNOSIS = None


def run_latent_attention(d_model, num_heads, d_nope, d_rope, theta, q_proj_weight, kv_down_proj_weight,
                         kv_up_proj_weight, o_proj_weight, in_features, token_positions=None):
    x = in_features.double()
    seq = x.shape[-2]
    d_latent = kv_up_proj_weight.shape[1]
    d_v = kv_up_proj_weight.shape[0] // num_heads - d_nope
    w_up = kv_up_proj_weight.double().view(num_heads, d_nope + d_v, d_latent)
    w_uk, w_uv = w_up[:, :d_nope], w_up[:, d_nope:]  # (h, d_nope, c), (h, d_v, c)
    w_o = o_proj_weight.double().view(d_model, num_heads, d_v)
    pos = torch.arange(seq, device=x.device) if token_positions is None else token_positions.to(x.device)
    freq = theta ** (-torch.arange(0, d_rope, 2, dtype=torch.float64, device=x.device) / d_rope)
    rot = torch.polar(torch.ones_like(pos.unsqueeze(-1) * freq, dtype=torch.float64), pos.unsqueeze(-1).double() * freq)

    def rope(t, r):
        return torch.view_as_real(torch.view_as_complex(t.unflatten(-1, (-1, 2)).contiguous()) * r).flatten(-2)

    q = (x @ q_proj_weight.double().T).unflatten(-1, (num_heads, d_nope + d_rope))  # (..., s, h, dn + dr)
    q_absorbed = torch.einsum("...shn,hnc->...hsc", q[..., :d_nope], w_uk)  # (..., h, s, c)
    q_rope = rope(q[..., d_nope:].transpose(-3, -2), rot.unsqueeze(-3))  # (..., h, s, dr)
    c, k_rope = (x @ kv_down_proj_weight.double().T).split([d_latent, d_rope], dim=-1)
    k_rope = rope(k_rope, rot)  # (..., s, dr)
    scores = torch.einsum("...hsc,...tc->...hst", q_absorbed, c) + torch.einsum("...hsr,...tr->...hst", q_rope, k_rope)
    causal = torch.ones(seq, seq, dtype=torch.bool, device=x.device).tril()
    weights = (scores / math.sqrt(d_nope + d_rope)).masked_fill(~causal, float("-inf")).softmax(-1)
    mixed = torch.einsum("...hst,...tc->...hsc", weights, c)  # weighted latents per head
    w_out = torch.einsum("mhv,hvc->hcm", w_o, w_uv)  # W_UV absorbed into the output projection
    return torch.einsum("...hsc,hcm->...sm", mixed, w_out).to(in_features.dtype)
