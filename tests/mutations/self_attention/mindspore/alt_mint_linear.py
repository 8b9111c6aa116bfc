"""mint's torch-like functional API: `mint.nn.functional.linear(x, W, b)` for each projection (W in
nn.Dense's (d_out, d_in) layout, b optional), `mint.matmul`, `mint.transpose(keys, -2, -1)` and
`mint.nn.functional.softmax`, with the scale from `math.sqrt(d_out)`. Correct: linear computes x Wᵀ + b,
the scores are divided by √d_out before the softmax over the keys, and no axis other than the last two moves."""

import math

from mindspore import mint


def run_self_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                       q_proj_bias=None, k_proj_bias=None, v_proj_bias=None):
    queries = mint.nn.functional.linear(in_features, q_proj_weight, q_proj_bias)  # (..., seq, d_out)
    keys = mint.nn.functional.linear(in_features, k_proj_weight, k_proj_bias)
    values = mint.nn.functional.linear(in_features, v_proj_weight, v_proj_bias)
    attn_scores = mint.matmul(queries, mint.transpose(keys, -2, -1)) / math.sqrt(d_out)  # (..., seq, seq)
    attn_weights = mint.nn.functional.softmax(attn_scores, dim=-1)
    return mint.matmul(attn_weights, values)
