"""Never builds the fused qkv: head h's query weights are rows h*hs .. (h+1)*hs - 1 of c_attn's first n_embd rows
(its keys and values the same rows of the next two blocks), so each head is projected from its own slice of
c_attn_weight and c_attn_bias in a loop, in float64; the heads are concatenated and c_proj applied."""

import numpy as np


def run_gpt2_causal_self_attention(n_embd, n_head, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias,
                                   in_features):
    x = in_features.astype(np.float64)
    W, b = c_attn_weight.astype(np.float64), c_attn_bias.astype(np.float64)
    hs, seq = n_embd // n_head, x.shape[-2]
    causal = np.tril(np.ones((seq, seq), dtype=bool))
    heads = []
    for h in range(n_head):
        rows = [slice(part * n_embd + h * hs, part * n_embd + (h + 1) * hs) for part in range(3)]
        q, k, v = (x @ W[r].T + b[r] for r in rows)  # (..., seq, hs) each
        att = np.where(causal, q @ np.swapaxes(k, -1, -2) / np.sqrt(hs), -np.inf)
        att = np.exp(att - att.max(axis=-1, keepdims=True))
        heads.append(att / att.sum(axis=-1, keepdims=True) @ v)
    y = np.concatenate(heads, axis=-1)
    out = y @ c_proj_weight.astype(np.float64).T + c_proj_bias.astype(np.float64)
    return out.astype(in_features.dtype)
