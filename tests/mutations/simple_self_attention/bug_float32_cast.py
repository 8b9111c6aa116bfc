"""Casts the input to float32 first (`inputs.float()`), so float64 and bfloat16 inputs come back float32."""

import torch

DIAGNOSIS = None


def run_simple_self_attention(inputs):
    x = inputs.float()
    weights = torch.softmax(x @ x.transpose(-2, -1), dim=-1)
    return weights @ x
