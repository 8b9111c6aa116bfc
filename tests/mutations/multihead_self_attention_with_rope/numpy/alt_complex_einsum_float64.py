"""Float64 throughout, heads kept as an einsum axis ((..., seq, heads, d_k), never transposed), and RoPE as a
complex multiplication of the pairs x[2i] + i·x[2i+1] by e^{i·angle} (positions broadcast over the head axis
with [..., None]); the scores and the weighted sum are einsums over named axes."""

import numpy as np


def _rope(x, positions, theta):
    d_k = x.shape[-1]
    angles = positions[..., None].astype(np.float64) * theta ** (-np.arange(0, d_k, 2) / d_k)  # (..., d_k/2)
    rotated = (x[..., 0::2] + 1j * x[..., 1::2]) * np.exp(1j * angles)
    return np.stack([rotated.real, rotated.imag], axis=-1).reshape(x.shape)


def run_multihead_self_attention_with_rope(d_model, num_heads, max_seq_len, theta, q_proj_weight, k_proj_weight,
                                           v_proj_weight, o_proj_weight, in_features, token_positions=None):
    x = in_features.astype(np.float64)
    *lead, seq, _ = x.shape
    d_k = d_model // num_heads
    if token_positions is None:
        token_positions = np.arange(seq)
    positions = token_positions[..., :, None]  # (..., seq, 1): the same angle for every head
    q, k, v = (np.einsum("...si,oi->...so", x, w.astype(np.float64)).reshape(*lead, seq, num_heads, d_k)
               for w in (q_proj_weight, k_proj_weight, v_proj_weight))
    q, k = _rope(q, positions, theta), _rope(k, positions, theta)
    scores = np.einsum("...qhd,...khd->...hqk", q, k) / np.sqrt(d_k)
    scores = np.where(np.tri(seq, dtype=bool), scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    context = np.einsum("...hqk,...khd->...qhd", weights, v).reshape(*lead, seq, d_model)
    return (context @ o_proj_weight.astype(np.float64).T).astype(in_features.dtype)
