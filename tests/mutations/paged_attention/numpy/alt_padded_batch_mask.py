"""Every sequence at once in NumPy: gather all max_blocks blocks of every table with fancy indexing, mask the
tokens at or after context_lens[s] with -inf, group the query heads as (kv_heads, group)."""

import numpy as np

DIAGNOSIS = None


def run_paged_attention(query, key_cache, value_cache, block_tables, context_lens):
    seqs, heads, d = query.shape
    kv_heads = key_cache.shape[2]
    work = np.promote_types(query.dtype, np.float32)
    keys = key_cache[block_tables].reshape(seqs, -1, kv_heads, d).astype(work)  # (seqs, tokens, kv, d)
    values = value_cache[block_tables].reshape(seqs, -1, kv_heads, d).astype(work)
    q = query.astype(work).reshape(seqs, kv_heads, heads // kv_heads, d)
    scores = np.einsum("skgd,stkd->skgt", q, keys) / np.sqrt(d).astype(work)
    valid = np.arange(keys.shape[1])[None, :] < context_lens[:, None]  # (seqs, tokens)
    scores = np.where(valid[:, None, None, :], scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    out = np.einsum("skgt,stkd->skgd", weights, values)
    return out.reshape(seqs, heads, d).astype(query.dtype)
