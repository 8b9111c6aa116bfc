"""What an nn.Module does: precompute float32 cos/sin tables with one row per position 0..max_seq_len-1,
then index them by token_positions. Float64 inputs get float32 angles (within the spec's tolerance)."""

import torch


def run_rope(d_k, theta, max_seq_len, in_query_or_key, token_positions):
    freqs = theta ** (-torch.arange(0, d_k, 2, dtype=torch.float32) / d_k)  # (d_k/2,)
    table = torch.outer(torch.arange(max_seq_len, dtype=torch.float32), freqs)  # (max_seq_len, d_k/2)
    cos, sin = table.cos()[token_positions], table.sin()[token_positions]  # (..., seq, d_k/2)
    x = in_query_or_key.to(torch.promote_types(in_query_or_key.dtype, torch.float32))
    even, odd = x[..., 0::2], x[..., 1::2]
    out = torch.empty_like(x)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out.to(in_query_or_key.dtype)
