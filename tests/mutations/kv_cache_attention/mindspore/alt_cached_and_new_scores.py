"""Scores against the cache and against the new keys computed separately: the cached block needs no mask,
the new block (t_new × t_new) gets the causal -inf mask from `ops.triu(..., diagonal=1)`, the two are joined
along the keys with `ops.cat` and go through one softmax written by hand; the output is the weights of each
block times its values, added. Correct: one softmax over [cached, new] is the attention over the extended
cache, and splitting the weighted sum by blocks changes nothing; the caches come back extended by K and V.
An empty cache (the first call) skips the cached block: MindSpore 2.10's CPU matmul over an empty axis
returns uninitialized memory instead of zeros (docs/mindspore.md), so `weights[..., :0] @ v_cache` would add
garbage."""

import math

import mindspore
from mindspore import ops


def run_kv_cache_attention(Q, K, V, k_cache, v_cache):
    t_past, t_new = k_cache.shape[-2], Q.shape[-2]
    scale = 1.0 / math.sqrt(Q.shape[-1])
    cached_scores = ops.matmul(Q, k_cache.swapaxes(-2, -1)) * scale  # (..., t_new, t_past)
    new_scores = ops.matmul(Q, K.swapaxes(-2, -1)) * scale  # (..., t_new, t_new)
    future = ops.triu(ops.ones((t_new, t_new), mindspore.bool_), diagonal=1)
    new_scores = ops.masked_fill(new_scores, future, float("-inf"))
    scores = ops.cat((cached_scores, new_scores), axis=-1)  # (..., t_new, t_past + t_new)
    exps = ops.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = exps / exps.sum(axis=-1, keepdims=True)
    output = ops.matmul(weights[..., t_past:], V)
    if t_past > 0:
        output = output + ops.matmul(weights[..., :t_past], v_cache)
    return output, ops.cat((k_cache, K), axis=-2), ops.cat((v_cache, V), axis=-2)
