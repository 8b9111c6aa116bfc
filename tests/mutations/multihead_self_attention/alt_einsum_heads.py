"""Projects straight into heads with einsum on the weights reshaped to (heads, d_k, d_in), attends with an
einsum over the sequence axes, and merges with einsum into the output projection."""

import math

import torch


def run_multihead_self_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight,
                                 o_proj_weight, in_features, o_proj_bias=None):
    d_k = d_model // num_heads
    q, k, v = (torch.einsum("...si,hdi->...hsd", in_features, w.reshape(num_heads, d_k, -1))
               for w in (q_proj_weight, k_proj_weight, v_proj_weight))  # (..., heads, seq, d_k)
    scores = torch.einsum("...hqd,...hkd->...hqk", q, k) / math.sqrt(d_k)
    seq = in_features.shape[-2]
    scores = scores.masked_fill(torch.ones(seq, seq, dtype=torch.bool).triu(1), float("-inf"))
    context = torch.einsum("...hqk,...hkd->...hqd", torch.softmax(scores, dim=-1), v)
    out = torch.einsum("...hsd,ohd->...so", context, o_proj_weight.reshape(d_model, num_heads, d_k))
    return out if o_proj_bias is None else out + o_proj_bias
