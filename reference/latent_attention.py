"""Multi-head latent attention (MLA, DeepSeek-V2 2024): keys and values from one small latent per token.

A decoder's KV cache holds, per token and layer, a key and a value for every head: 2 · heads · d_head numbers.
MLA caches instead one latent vector c (d_latent numbers, a few times smaller) from which every head's key
and value are projected up: k_nope = W_UK c and v = W_UV c. RoPE cannot be applied to keys made this way
without losing the trick below, so the position goes into a separate, decoupled part: a small key k_rope,
shared by all heads and also cached, rotated by RoPE, and a matching rotated part q_rope of each head's
query. A head's score is (q_nope·k_nope + q_rope·k_rope) / √(d_nope + d_rope).

The trick (the decode form): q_nope·(W_UK c) = (W_UKᵀ q_nope)·c, so W_UK can be absorbed into the query and
W_UV into the output projection: attention then runs directly against the cached latents, never building
per-head keys or values. Both forms compute the same function; this one is the naive form.

The weights are nn.Linear-shaped (out, in), laid out as DeepSeek-V2's q_proj, kv_a_proj_with_mqa, kv_b_proj
and o_proj (the latent's RMSNorm is left out): per head, the query is [q_nope | q_rope] and the up-projected
latent [k_nope | v]; the down-projection gives [c | k_rope].
"""

import math

import torch
from jaxtyping import Float, Int
from torch import Tensor


def run_latent_attention(
    d_model: int,
    num_heads: int,
    d_nope: int,
    d_rope: int,
    theta: float,
    q_proj_weight: Float[Tensor, "q_dim d_model"],
    kv_down_proj_weight: Float[Tensor, "down_dim d_model"],
    kv_up_proj_weight: Float[Tensor, "up_dim d_latent"],
    o_proj_weight: Float[Tensor, "d_model v_dim"],
    in_features: Float[Tensor, "... seq d_model"],
    token_positions: Int[Tensor, "... seq"] | None = None,
) -> Float[Tensor, "... seq d_model"]:
    """Causal multi-head latent attention (DeepSeek-V2's MLA), in its naive form.

    With x = in_features and, per head h, d_v = kv_up_proj_weight.shape[0] / num_heads − d_nope:
        [c | k_rope] = x W_down ᵀ                 c: (..., seq, d_latent), k_rope: (..., seq, d_rope)
        [k_nope_h | v_h] = c W_up ᵀ, per head     k_nope_h: (..., seq, d_nope), v_h: (..., seq, d_v)
        [q_nope_h | q_rope_h] = x W_q ᵀ, per head
        q_rope_h and k_rope rotated by RoPE (interleaved pairs, angle p·θ^(−2i/d_rope), p from token_positions)
        score_h = (q_nope_h k_nope_hᵀ + q_rope_h k_ropeᵀ) / √(d_nope + d_rope), causal (j ≤ i)
        out = concat_h(softmax(score_h) v_h) W_o ᵀ

    Args:
        d_model: size of in_features' last axis and of the output.
        num_heads: number of heads.
        d_nope: per head, the size of the query and key part without position.
        d_rope: the size of the rotated part (even), per head for the query, shared for the key.
        theta: RoPE base.
        q_proj_weight: (num_heads · (d_nope + d_rope), d_model); head h's rows are [q_nope_h | q_rope_h].
        kv_down_proj_weight: (d_latent + d_rope, d_model); rows [c | k_rope].
        kv_up_proj_weight: (num_heads · (d_nope + d_v), d_latent); head h's rows are [k_nope_h | v_h].
        o_proj_weight: (d_model, num_heads · d_v).
        in_features: (..., seq, d_model).
        token_positions: (..., seq) integer positions for RoPE; None means 0, 1, ..., seq − 1.

    Returns:
        (..., seq, d_model), dtype and device of in_features; the arguments are not modified.

    中文：多头潜在注意力（DeepSeek-V2 的 MLA，朴素形式）：键和值由每个词元的一个低维潜向量 c 上投影得到
    （缓存的是 c），位置信息放在单独的解耦部分 q_rope、k_rope 上用 RoPE 旋转（k_rope 所有头共享）；分数为
    (q_nope·k_nope + q_rope·k_rope) / √(d_nope + d_rope)，因果掩码，最后经 W_o 输出。
    """
    # BEGIN SOLUTION
    work = torch.promote_types(in_features.dtype, torch.float32)  # bfloat16: compute in float32
    x = in_features.to(work)
    seq = x.shape[-2]
    d_latent = kv_up_proj_weight.shape[1]
    d_v = kv_up_proj_weight.shape[0] // num_heads - d_nope
    positions = torch.arange(seq, device=x.device) if token_positions is None else token_positions.to(x.device)

    q = (x @ q_proj_weight.to(work).T).unflatten(-1, (num_heads, d_nope + d_rope)).transpose(-3, -2)
    q_nope, q_rope = q.split([d_nope, d_rope], dim=-1)  # (..., heads, seq, d_nope), (..., heads, seq, d_rope)
    down = x @ kv_down_proj_weight.to(work).T  # (..., seq, d_latent + d_rope)
    latent, k_rope = down.split([d_latent, d_rope], dim=-1)  # what MLA caches: (..., seq, d_latent), (..., seq, d_rope)
    up = (latent @ kv_up_proj_weight.to(work).T).unflatten(-1, (num_heads, d_nope + d_v)).transpose(-3, -2)
    k_nope, v = up.split([d_nope, d_v], dim=-1)  # (..., heads, seq, d_nope), (..., heads, seq, d_v)

    q_rope = rotate(q_rope, positions.unsqueeze(-2), theta)  # positions (..., 1, seq) broadcast over heads
    k_rope = rotate(k_rope, positions, theta).unsqueeze(-3)  # (..., 1, seq, d_rope): one for every head
    scores = (q_nope @ k_nope.transpose(-2, -1) + q_rope @ k_rope.transpose(-2, -1)) / math.sqrt(d_nope + d_rope)
    future = torch.ones(seq, seq, dtype=torch.bool, device=x.device).triu(diagonal=1)  # (seq, seq)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)  # (..., heads, seq, seq)
    heads = (weights @ v).transpose(-3, -2).flatten(-2)  # (..., seq, heads · d_v)
    return (heads @ o_proj_weight.to(work).T).to(in_features.dtype)  # (..., seq, d_model)
    # END SOLUTION


# BEGIN SOLUTION
def rotate(x: Tensor, positions: Tensor, theta: float) -> Tensor:
    """RoPE on interleaved pairs (x[2i], x[2i+1]) by the angle p·θ^(−2i/d): x (..., seq, d), positions (..., seq)."""
    d = x.shape[-1]
    frequencies = theta ** (-torch.arange(0, d, 2, dtype=x.dtype, device=x.device) / d)  # (d/2,)
    angles = positions.to(x.dtype).unsqueeze(-1) * frequencies  # (..., seq, d/2)
    cos, sin = torch.cos(angles), torch.sin(angles)
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1).flatten(-2)  # (..., seq, d)
# END SOLUTION
