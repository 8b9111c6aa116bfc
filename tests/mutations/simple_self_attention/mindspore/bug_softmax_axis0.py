"""Seed 001 §3.3.1 normalises the scores of ONE query with `nn.Softmax(axis=0)`; the student reuses that cell
for the whole score matrix, so every COLUMN sums to 1 instead of every row."""

from mindspore import nn, ops

DIAGNOSIS = "softmax_over_dim0"

softmax = nn.Softmax(axis=0)


def run_simple_self_attention(inputs):
    attn_scores = ops.matmul(inputs, inputs.swapaxes(-2, -1))
    attn_weights = softmax(attn_scores)
    return ops.matmul(attn_weights, inputs)
