"""Decodes the new tokens one at a time, as generation does: new token i (absolute position t_past + i) attends
to the first t_past + i + 1 keys of the extended cache, no mask needed; the outputs are stacked along the
sequence axis. Float32 inside for bfloat16 (np.einsum does not take it)."""

import numpy as np


def run_kv_cache_attention(Q, K, V, k_cache, v_cache):
    keys = np.concatenate([k_cache, K], axis=-2)
    values = np.concatenate([v_cache, V], axis=-2)
    work = np.promote_types(Q.dtype, np.float32)
    t_past = k_cache.shape[-2]
    outputs = []
    for i in range(Q.shape[-2]):
        seen = t_past + i + 1
        q = Q[..., i, :].astype(work)  # (..., d)
        scores = np.einsum("...d,...kd->...k", q, keys[..., :seen, :].astype(work)) / np.sqrt(q.shape[-1])
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        weights /= weights.sum(axis=-1, keepdims=True)
        outputs.append(np.einsum("...k,...kd->...d", weights, values[..., :seen, :].astype(work)))
    return np.stack(outputs, axis=-2).astype(Q.dtype), keys, values
