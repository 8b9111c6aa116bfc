"""All heads in one batched computation instead of a list of cells: the input gets a head axis
(`expand_dims(-3)`), `ops.matmul` with the stacked weights' transposes (num_heads, d_in, d_out) broadcasts
to (..., heads, seq, d_out), causal attention runs on all heads together, and the head axis is moved behind
the sequence axis before the last two axes are merged. Correct: head h uses only weights[h], and moving the
heads next to their features before the reshape puts head 0's d_out columns first, as ops.cat would."""

import mindspore
from mindspore import nn, ops


def run_multihead_attention_wrapper(d_in, d_out, num_heads, q_proj_weights, k_proj_weights, v_proj_weights,
                                    in_features):
    x = in_features.expand_dims(-3)  # (..., 1, seq, d_in)
    queries = ops.matmul(x, ops.swapaxes(q_proj_weights, -2, -1))  # (..., heads, seq, d_out)
    keys = ops.matmul(x, ops.swapaxes(k_proj_weights, -2, -1))
    values = ops.matmul(x, ops.swapaxes(v_proj_weights, -2, -1))
    seq = in_features.shape[-2]
    future = ops.triu(ops.ones((seq, seq), mindspore.float32), diagonal=1).astype(mindspore.bool_)
    attn_scores = ops.masked_fill(ops.matmul(queries, ops.swapaxes(keys, -2, -1)), future, float("-inf"))
    attn_weights = nn.Softmax(axis=-1)(attn_scores / d_out**0.5)
    context = ops.matmul(attn_weights, values)  # (..., heads, seq, d_out)
    context = ops.swapaxes(context, -3, -2)  # (..., seq, heads, d_out)
    return context.reshape(*context.shape[:-2], num_heads * d_out)
