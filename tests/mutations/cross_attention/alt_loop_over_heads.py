"""One head at a time with the rows of each weight that belong to it, outputs concatenated, then W_o; the
padding handled by selecting the real keys' scores with torch.where."""

import math

import torch


def run_cross_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                        decoder_states, encoder_states, encoder_padding_mask):
    d_head = d_model // num_heads
    real = encoder_padding_mask.unsqueeze(-2)  # (..., 1, T_enc): same for every query of a sequence
    outputs = []
    for h in range(num_heads):
        rows = slice(h * d_head, (h + 1) * d_head)
        q = decoder_states @ q_proj_weight[rows].T
        k = encoder_states @ k_proj_weight[rows].T
        v = encoder_states @ v_proj_weight[rows].T
        scores = q @ k.transpose(-1, -2) / math.sqrt(d_head)
        scores = torch.where(real, scores, torch.tensor(float("-inf"), dtype=scores.dtype))
        outputs.append(torch.softmax(scores, dim=-1) @ v)
    return torch.cat(outputs, dim=-1) @ o_proj_weight.T
