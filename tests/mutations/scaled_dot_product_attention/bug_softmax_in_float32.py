"""The Llama/Mistral/OpenNMT idiom `F.softmax(scores.float(), dim=-1).type_as(Q)`: a float32 softmax is the
safe choice for bfloat16 and float16 inputs (it upcasts), but it rounds float64 scores down to float32, so a
float64 call returns float64 weights with float32 precision (off by ~1e-7 relative)."""

import math

import torch.nn.functional as F

DIAGNOSIS = "float32_precision"


def run_scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask.bool(), float("-inf"))
    return F.softmax(scores.float(), dim=-1).type_as(Q) @ V
