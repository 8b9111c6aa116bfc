"""Uses the rotate-half convention (GPT-NeoX, Hugging Face Llama): pairs x[i] with x[i + d_k/2] instead
of the interleaved pairs (x[2i], x[2i+1]) this exercise (and Meta's Llama) uses."""

import torch

DIAGNOSIS = "rotate_half"


def run_rope(d_k, theta, max_seq_len, in_query_or_key, token_positions):
    x = in_query_or_key.float() if in_query_or_key.dtype != torch.float64 else in_query_or_key
    inv_freq = 1.0 / theta ** (torch.arange(0, d_k, 2, dtype=x.dtype) / d_k)  # (d_k/2,)
    freqs = token_positions.to(x.dtype)[..., None] * inv_freq  # (..., seq, d_k/2)
    emb = torch.cat((freqs, freqs), dim=-1)  # (..., seq, d_k)
    x1, x2 = x[..., : d_k // 2], x[..., d_k // 2:]
    rotated = torch.cat((-x2, x1), dim=-1)
    return (x * emb.cos() + rotated * emb.sin()).to(in_query_or_key.dtype)
