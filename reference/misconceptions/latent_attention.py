"""Wrong multi-head latent attention: the scale, RoPE (missing, on halves, at default positions), the rows of
the projections split the wrong way, no causal mask. Each is `mla` with one knob turned."""

import math

import torch


def rotate(x, positions, theta, *, halves=False):
    """RoPE on (..., seq, d): interleaved pairs (x[2i], x[2i+1]), or the halves (x[i], x[i + d/2])."""
    d = x.shape[-1]
    angles = positions.to(x.dtype).unsqueeze(-1) * theta ** (-torch.arange(0, d, 2, dtype=x.dtype) / d)
    cos, sin = torch.cos(angles), torch.sin(angles)
    if halves:
        a, b = x[..., : d // 2], x[..., d // 2:]
        return torch.cat((a * cos - b * sin, a * sin + b * cos), dim=-1)
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.stack((a * cos - b * sin, a * sin + b * cos), dim=-1).flatten(-2)


def _per_head(flat, heads, first, second, per_head):
    """(..., seq, heads·(first+second)) -> two (..., heads, seq, ·) parts: per head [first | second], or the
    flat rows as [every head's first | every head's second]."""
    if per_head:
        a, b = flat.unflatten(-1, (heads, first + second)).split([first, second], dim=-1)
    else:
        a, b = flat.split([heads * first, heads * second], dim=-1)
        a, b = a.unflatten(-1, (heads, first)), b.unflatten(-1, (heads, second))
    return a.transpose(-3, -2), b.transpose(-3, -2)


def mla(d_model, num_heads, d_nope, d_rope, theta, q_proj_weight, kv_down_proj_weight, kv_up_proj_weight,
        o_proj_weight, in_features, token_positions=None, *, scale_dims="both", rope="interleaved",
        query_per_head=True, up_per_head=True, down_swapped=False, causal=True, use_positions=True):
    work = torch.float64
    x = in_features.to(work)
    seq = x.shape[-2]
    d_latent = kv_up_proj_weight.shape[1]
    d_v = kv_up_proj_weight.shape[0] // num_heads - d_nope
    positions = torch.arange(seq) if token_positions is None or not use_positions else token_positions
    q_nope, q_rope = _per_head(x @ q_proj_weight.to(work).T, num_heads, d_nope, d_rope, query_per_head)
    down = x @ kv_down_proj_weight.to(work).T
    if down_swapped:
        k_rope, latent = down.split([d_rope, d_latent], dim=-1)
    else:
        latent, k_rope = down.split([d_latent, d_rope], dim=-1)
    k_nope, v = _per_head(latent @ kv_up_proj_weight.to(work).T, num_heads, d_nope, d_v, up_per_head)
    if rope != "none":
        q_rope = rotate(q_rope, positions.unsqueeze(-2), theta, halves=rope == "halves")
        k_rope = rotate(k_rope, positions, theta, halves=rope == "halves")
    k_rope = k_rope.unsqueeze(-3)
    scale = math.sqrt(d_nope + d_rope if scale_dims == "both" else d_nope)
    scores = (q_nope @ k_nope.transpose(-2, -1) + q_rope @ k_rope.transpose(-2, -1)) / scale
    if causal:
        scores = scores.masked_fill(torch.ones(seq, seq, dtype=torch.bool).triu(1), float("-inf"))
    heads = (torch.softmax(scores, dim=-1) @ v).transpose(-3, -2).flatten(-2)
    return (heads @ o_proj_weight.to(work).T).to(in_features.dtype)


def scale_without_rope_dims(**kwargs):
    """Scores divided by √d_nope."""
    return mla(**kwargs, scale_dims="nope")


def rope_missing(**kwargs):
    """q_rope and k_rope not rotated."""
    return mla(**kwargs, rope="none")


def rope_halves(**kwargs):
    """RoPE pairing x[i] with x[i + d/2] (the rotate_half layout)."""
    return mla(**kwargs, rope="halves")


def query_split_not_per_head(**kwargs):
    """The query's rows read as [every head's q_nope | every head's q_rope]."""
    return mla(**kwargs, query_per_head=False)


def up_split_not_per_head(**kwargs):
    """The up-projection's rows read as [every head's k_nope | every head's v]."""
    return mla(**kwargs, up_per_head=False)


def down_split_swapped(**kwargs):
    """The down-projection read as [k_rope | c]."""
    return mla(**kwargs, down_swapped=True)


def no_causal_mask(**kwargs):
    """Every query attends to every key."""
    return mla(**kwargs, causal=False)


def positions_ignored(**kwargs):
    """RoPE at 0 .. seq − 1 whatever token_positions says."""
    return mla(**kwargs, use_positions=False)
