"""einops for the heads, einsum for the scores, the most negative finite number instead of -inf."""

import torch
from einops import rearrange


def run_cross_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                        decoder_states, encoder_states, encoder_padding_mask):
    q = rearrange(decoder_states @ q_proj_weight.T, "... t (h d) -> ... h t d", h=num_heads)
    k = rearrange(encoder_states @ k_proj_weight.T, "... s (h d) -> ... h s d", h=num_heads)
    v = rearrange(encoder_states @ v_proj_weight.T, "... s (h d) -> ... h s d", h=num_heads)
    scores = torch.einsum("...htd,...hsd->...hts", q, k) * q.shape[-1] ** -0.5
    padding = rearrange(~encoder_padding_mask, "... s -> ... 1 1 s")
    scores = scores.masked_fill(padding, torch.finfo(scores.dtype).min)
    out = torch.einsum("...hts,...hsd->...htd", scores.softmax(dim=-1), v)
    return rearrange(out, "... h t d -> ... t (h d)") @ o_proj_weight.T
