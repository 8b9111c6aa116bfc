"""Meta Llama's route: view each interleaved pair as a complex number x[2i] + i·x[2i+1] and multiply by
e^{i·angle}. Complex multiplication is the rotation. Computed in float32 at least (no complex bfloat16)."""

import torch


def run_rope(d_k, theta, max_seq_len, in_query_or_key, token_positions):
    x = in_query_or_key.to(torch.promote_types(in_query_or_key.dtype, torch.float32))
    freqs = 1.0 / theta ** (torch.arange(0, d_k, 2, dtype=x.dtype, device=x.device) / d_k)
    angles = token_positions.to(x.dtype).unsqueeze(-1) * freqs  # (..., seq, d_k/2)
    rotation = torch.polar(torch.ones_like(angles), angles)  # e^{i·angle}
    pairs = torch.view_as_complex(x.reshape(*x.shape[:-1], d_k // 2, 2).contiguous())
    rotated = torch.view_as_real(pairs * rotation).flatten(-2)  # (..., seq, d_k)
    return rotated.to(in_query_or_key.dtype)
