"""mint's torch-like API (`mint.matmul`, `mint.transpose`, `mint.nn.functional.softmax`) in float64, cast
back to the input's dtype at the end. Correct: the same softmax(X Xᵀ) X over the last two axes, only with
more precision inside than the input has."""

import mindspore
from mindspore import mint


def run_simple_self_attention(inputs):
    x = inputs.astype(mindspore.float64)
    attn_scores = mint.matmul(x, mint.transpose(x, -2, -1))  # (..., seq, seq)
    attn_weights = mint.nn.functional.softmax(attn_scores, dim=-1)
    return mint.matmul(attn_weights, x).astype(inputs.dtype)
