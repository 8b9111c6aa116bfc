"""Seed 001 §3.3.2's loops: every score x_i · x_j set one by one, then nn.Softmax(axis=-1) and a weighted
sum; the leading batch dimensions are flattened into one loop."""

import mindspore
from mindspore import nn, ops


def run_simple_self_attention(inputs):
    *batch, seq, d_in = inputs.shape
    flat = inputs.reshape(-1, seq, d_in)
    outputs = []
    for x in flat:
        attn_scores = ops.zeros((seq, seq), inputs.dtype)
        for i, x_i in enumerate(x):
            for j, x_j in enumerate(x):
                attn_scores[i, j] = (x_i * x_j).sum()
        attn_weights = nn.Softmax(axis=-1)(attn_scores)
        outputs.append(attn_weights @ x)
    return ops.stack(outputs).reshape(*batch, seq, d_in) if outputs else mindspore.ops.zeros_like(inputs)
