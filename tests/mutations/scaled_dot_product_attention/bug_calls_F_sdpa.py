"""Uses the library kernel (seed 000's commented-out flash-attention line), which the exercise forbids."""

import torch.nn.functional as F

DIAGNOSIS = None


def run_scaled_dot_product_attention(Q, K, V, mask=None):
    return F.scaled_dot_product_attention(Q, K, V, attn_mask=None if mask is None else mask.bool())
