"""A plain loop over heads in mint's torch-like API: per head `mint.nn.functional.linear` with that head's
weights, the future masked by `mint.where` on a `mint.triu(..., diagonal=1)` bool matrix,
`mint.nn.functional.softmax`, and the head outputs joined with `mint.cat(..., dim=-1)` in head order. Correct:
every head is causal attention scaled by its own √d_out, and concatenating in order puts head h in columns
h·d_out .. (h+1)·d_out − 1."""

import math

import mindspore
from mindspore import mint


def run_multihead_attention_wrapper(d_in, d_out, num_heads, q_proj_weights, k_proj_weights, v_proj_weights,
                                    in_features):
    seq = in_features.shape[-2]
    future = mint.triu(mint.ones((seq, seq), dtype=mindspore.bool_), diagonal=1)
    heads = []
    for h in range(num_heads):
        q = mint.nn.functional.linear(in_features, q_proj_weights[h])
        k = mint.nn.functional.linear(in_features, k_proj_weights[h])
        v = mint.nn.functional.linear(in_features, v_proj_weights[h])
        scores = mint.matmul(q, mint.transpose(k, -2, -1)) / math.sqrt(d_out)
        scores = mint.where(future, float("-inf"), scores)
        heads.append(mint.matmul(mint.nn.functional.softmax(scores, dim=-1), v))
    return mint.cat(heads, dim=-1)
