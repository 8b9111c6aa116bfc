"""latent_attention: its law (the decode form, with the up-projections absorbed into the query and the output
projection, computes the same function) and an example call.

The law needs no reference: for drawn shapes it computes MLA here in float64 the way DeepSeek-V2 decodes,
against the latents themselves (no per-head key or value is ever made), and compares the submission's
output, whichever form it computes, with it.
"""

import math

import torch

from attnlab.core.examples import Example, randn
from attnlab.core.i18n import Message
from attnlab.core.laws import drawn, expect_close, law, noise

MESSAGES = {
    "not_absorbed": {
        "en": "{shape}: the output differs from MLA computed in its decode form (W_UK absorbed into each head's "
              "query, W_UV into the output projection, attention against the latents c): both forms are the "
              "same function",
        "zh": "{shape}：输出与解码形式的 MLA 不同（W_UK 吸收进每个头的查询，W_UV 吸收进输出投影，直接对潜向量 c "
              "做注意力）：两种形式是同一个函数"},
}


def _mla_inputs() -> dict:
    from hypothesis import strategies as st

    return {"heads": st.integers(1, 3), "d_nope": st.integers(1, 4), "d_rope": st.sampled_from([2, 4]),
            "d_v": st.integers(1, 4), "d_latent": st.integers(1, 6), "d_model": st.integers(2, 8),
            "seq": st.integers(1, 7), "seed": st.integers(0, 2**31)}


def rotated(x: torch.Tensor, theta: float) -> torch.Tensor:
    """RoPE at positions 0 .. seq − 1 on interleaved pairs of x (..., seq, d), float64."""
    seq, d = x.shape[-2:]
    angles = torch.arange(seq, dtype=torch.float64)[:, None] * theta ** (-torch.arange(0, d, 2).double() / d)
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.stack((a * angles.cos() - b * angles.sin(), a * angles.sin() + b * angles.cos()), -1).flatten(-2)


def absorbed(call: dict) -> torch.Tensor:
    """MLA's decode form in float64: scores q_nope_h W_UK,h c + q_rope_h k_rope, output Σ_h (p_h c) (W_O,h W_UV,h)ᵀ."""
    h, dn, dr, theta = call["num_heads"], call["d_nope"], call["d_rope"], call["theta"]
    x = call["in_features"].double()
    wq, wd = call["q_proj_weight"].double(), call["kv_down_proj_weight"].double()
    wu, wo = call["kv_up_proj_weight"].double(), call["o_proj_weight"].double()
    d_latent, d_v = wu.shape[1], wu.shape[0] // h - dn
    w_uk, w_uv = wu.unflatten(0, (h, dn + d_v)).split([dn, d_v], dim=1)  # (h, dn, d_latent), (h, d_v, d_latent)
    q = (x @ wq.T).unflatten(-1, (h, dn + dr)).transpose(-3, -2)  # (..., h, seq, dn + dr)
    q_latent = q[..., :dn] @ w_uk  # (..., h, seq, d_latent): W_UK absorbed into the query
    c, k_rope = (x @ wd.T).split([d_latent, dr], dim=-1)  # (..., seq, d_latent), (..., seq, dr)
    scores = (q_latent @ c.unsqueeze(-3).transpose(-2, -1)
              + rotated(q[..., dn:], theta) @ rotated(k_rope, theta).unsqueeze(-3).transpose(-2, -1))
    seq = x.shape[-2]
    scores = scores.masked_fill(torch.ones(seq, seq, dtype=torch.bool).triu(1), float("-inf")) / math.sqrt(dn + dr)
    mixed = torch.softmax(scores, dim=-1) @ c.unsqueeze(-3)  # (..., h, seq, d_latent): weights over the latents
    w_out = torch.einsum("mhv,hvl->hlm", wo.unflatten(1, (h, d_v)), w_uv)  # (h, d_latent, d_model): W_UV absorbed
    return torch.einsum("...hsl,hlm->...sm", mixed, w_out)


@law(draws=_mla_inputs)
def latent_absorbed_equals_naive(ctx, examples: int = 10) -> None:
    """For drawn head counts and sizes, the output equals MLA's decode form computed here in float64."""
    calls = []
    for e in drawn("latent_absorbed_equals_naive", examples):
        h, dn, dr, dv, dl, dm = (e[k] for k in ("heads", "d_nope", "d_rope", "d_v", "d_latent", "d_model"))
        seed = e["seed"]
        calls.append({"d_model": dm, "num_heads": h, "d_nope": dn, "d_rope": dr, "theta": 10000.0,
                      "q_proj_weight": noise(torch.empty(h * (dn + dr), dm), seed) * 0.5,
                      "kv_down_proj_weight": noise(torch.empty(dl + dr, dm), seed + 1) * 0.5,
                      "kv_up_proj_weight": noise(torch.empty(h * (dn + dv), dl), seed + 2) * 0.5,
                      "o_proj_weight": noise(torch.empty(dm, h * dv), seed + 3) * 0.5,
                      "in_features": noise(torch.empty(2, e["seq"], dm), seed + 4)})
    for call, out in zip(calls, ctx.outputs(calls)):
        shape = (f"num_heads={call['num_heads']}, d_nope={call['d_nope']}, d_rope={call['d_rope']}, "
                 f"kv_up_proj_weight {tuple(call['kv_up_proj_weight'].shape)}, in_features "
                 f"{tuple(call['in_features'].shape)}")
        expect_close(ctx, out, absorbed(call), Message("latent_attention.not_absorbed", {"shape": shape}))


def example(g: torch.Generator, lead: tuple[int, ...], dtype: torch.dtype) -> Example:
    kwargs = {"d_model": 8, "num_heads": 2, "d_nope": 2, "d_rope": 2, "theta": 10000.0,
              "q_proj_weight": randn(g, 8, 8, dtype=dtype) * 0.5,
              "kv_down_proj_weight": randn(g, 5, 8, dtype=dtype) * 0.5,
              "kv_up_proj_weight": randn(g, 10, 3, dtype=dtype) * 0.5,
              "o_proj_weight": randn(g, 8, 6, dtype=dtype) * 0.5,
              "in_features": randn(g, *lead, 5, 8, dtype=dtype)}
    return Example(kwargs, ("in_features",), 8, causal=True)
