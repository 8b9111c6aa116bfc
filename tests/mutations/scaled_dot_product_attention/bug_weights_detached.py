"""Detaches the attention weights (kept "for plotting") before multiplying by V: the forward values are
right, but no gradient reaches Q or K, so the model could never learn where to attend."""

import math

import torch

DIAGNOSIS = None


def run_scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    attn_weights = torch.softmax(scores, dim=-1).detach()
    return attn_weights @ V
