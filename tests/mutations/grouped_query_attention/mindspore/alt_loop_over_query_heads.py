"""A loop over query heads: query head h projects with rows h·d_head .. (h+1)·d_head − 1 of W_q and uses kv
head h // (num_heads // num_kv_heads), whose rows of W_k and W_v it slices the same way; causal attention per
head with an additive 0/-inf bias and `ops.softmax`, heads joined with `ops.cat` in order, then
`ops.matmul(..., W_o.T)`. Correct: integer division sends consecutive query heads to the same kv head, and
computing a shared kv head again for each of its query heads changes no value."""

import math

import mindspore
from mindspore import ops


def run_grouped_query_attention(d_model, num_heads, num_kv_heads, q_proj_weight, k_proj_weight, v_proj_weight,
                                o_proj_weight, in_features):
    d_head = d_model // num_heads
    group = num_heads // num_kv_heads
    seq = in_features.shape[-2]
    future = ops.triu(ops.ones((seq, seq), mindspore.bool_), diagonal=1)
    causal_bias = ops.masked_fill(ops.zeros((seq, seq), in_features.dtype), future, float("-inf"))
    heads = []
    for h in range(num_heads):
        g = h // group  # the kv head this query head shares
        q = ops.matmul(in_features, q_proj_weight[h * d_head:(h + 1) * d_head].T)  # (..., seq, d_head)
        k = ops.matmul(in_features, k_proj_weight[g * d_head:(g + 1) * d_head].T)
        v = ops.matmul(in_features, v_proj_weight[g * d_head:(g + 1) * d_head].T)
        scores = ops.matmul(q, k.swapaxes(-2, -1)) / math.sqrt(d_head) + causal_bias
        heads.append(ops.matmul(ops.softmax(scores, axis=-1), v))
    return ops.matmul(ops.cat(heads, axis=-1), o_proj_weight.T)
