"""Decoding written as it runs: the caches are extended with `ops.cat`, then for every new token i its query
attends to the first t_past + i + 1 cached keys (everything up to and including itself) with nn.Softmax, and
the rows are put together with `ops.stack(..., axis=-2)`. Correct: slicing the keys to t_past + i + 1 is the
causal mask shifted by t_past, so no mask is needed, and the returned caches are new tensors."""

import math

from mindspore import nn, ops


def run_kv_cache_attention(Q, K, V, k_cache, v_cache):
    new_k_cache = ops.cat((k_cache, K), axis=-2)  # (..., t_past + t_new, d)
    new_v_cache = ops.cat((v_cache, V), axis=-2)
    t_past, t_new = k_cache.shape[-2], Q.shape[-2]
    softmax = nn.Softmax(axis=-1)
    rows = []
    for i in range(t_new):
        seen = t_past + i + 1  # keys 0 .. t_past + i
        q = Q[..., i:i + 1, :]  # (..., 1, d)
        scores = ops.matmul(q, new_k_cache[..., :seen, :].swapaxes(-2, -1)) / math.sqrt(Q.shape[-1])  # (..., 1, seen)
        rows.append(ops.matmul(softmax(scores), new_v_cache[..., :seen, :])[..., 0, :])  # (..., d)
    return ops.stack(rows, axis=-2), new_k_cache, new_v_cache
