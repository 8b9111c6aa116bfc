"""A loop over heads in float64: head h uses columns h*d_head .. (h+1)*d_head - 1 of the projected queries, keys and
values; the padding keys' scores are set to -inf with the mask given one axis for the decoder positions; the
head outputs are concatenated in order and projected by W_o."""

import numpy as np


def run_cross_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                        decoder_states, encoder_states, encoder_padding_mask):
    dec, enc = decoder_states.astype(np.float64), encoder_states.astype(np.float64)
    q = dec @ q_proj_weight.astype(np.float64).T
    k = enc @ k_proj_weight.astype(np.float64).T
    v = enc @ v_proj_weight.astype(np.float64).T
    d_head = d_model // num_heads
    real = encoder_padding_mask[..., None, :]  # (..., 1, T_enc): one row for every decoder position
    heads = []
    for h in range(num_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        scores = q[..., cols] @ np.swapaxes(k[..., cols], -1, -2) / np.sqrt(d_head)  # (..., T_dec, T_enc)
        scores = np.where(real, scores, -np.inf)
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        heads.append(weights / weights.sum(axis=-1, keepdims=True) @ v[..., cols])
    out = np.concatenate(heads, axis=-1) @ o_proj_weight.astype(np.float64).T
    return out.astype(decoder_states.dtype)
