"""A RoPE with knobs, one per known mistake; knobs at their defaults give the right rotation."""

import torch


def rotary(x, positions, theta, d_k, *, half_split=False, sign=1.0, exponent_step=2, cat_layout=False):
    """Rotate pairs of x (..., seq, d) by sign·p·theta^(-exponent_step·i/d_k).

    half_split: pair x[i] with x[i + d/2] (the rotate-half convention) instead of x[2i] with x[2i+1].
    cat_layout: build per-feature cos/sin with torch.cat([c, c]) (the rotate-half layout) but rotate
    interleaved pairs, so feature j uses frequency j mod d/2.
    """
    compute = torch.promote_types(x.dtype, torch.float32)
    half = x.shape[-1] // 2
    steps = torch.arange(half, dtype=compute, device=x.device) * exponent_step  # exponent_step · i
    angles = sign * positions.to(compute).unsqueeze(-1) * theta ** (-steps / d_k)  # (..., seq, d/2)
    cos, sin = torch.cos(angles), torch.sin(angles)
    xc = x.to(compute)
    if cat_layout:
        cos, sin = torch.cat([cos, cos], dim=-1), torch.cat([sin, sin], dim=-1)
        swapped = torch.stack((-xc[..., 1::2], xc[..., 0::2]), dim=-1).flatten(-2)  # (-x1, x0, -x3, x2, ...)
        return (xc * cos + swapped * sin).to(x.dtype)
    if half_split:
        a, b = xc[..., :half], xc[..., half:]
        return torch.cat((a * cos - b * sin, a * sin + b * cos), dim=-1).to(x.dtype)
    a, b = xc[..., 0::2], xc[..., 1::2]
    return torch.stack((a * cos - b * sin, a * sin + b * cos), dim=-1).flatten(-2).to(x.dtype)
