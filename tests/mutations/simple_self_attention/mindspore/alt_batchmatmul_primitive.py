"""Primitive-operator style: the leading batch dimensions are flattened into one, then
`ops.BatchMatMul(transpose_b=True)` computes X Xᵀ per batch entry without writing a transpose, and
`ops.Softmax(axis=-1)` normalises each row of scores over the keys. Correct: the scores are x_i · x_j, no
scaling, the softmax runs along the last axis, and the result is reshaped back to the input's leading dims."""

from mindspore import ops


def run_simple_self_attention(inputs):
    *batch, seq, d_in = inputs.shape
    x = inputs.reshape(-1, seq, d_in)  # (B, seq, d_in)
    attn_scores = ops.BatchMatMul(transpose_b=True)(x, x)  # (B, seq, seq)
    attn_weights = ops.Softmax(axis=-1)(attn_scores)
    context_vecs = ops.BatchMatMul()(attn_weights, x)  # (B, seq, d_in)
    return context_vecs.reshape(*batch, seq, d_in)
