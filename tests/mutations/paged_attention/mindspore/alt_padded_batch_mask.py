"""Every sequence at once in MindSpore: gather all max_blocks blocks of every table with ops.gather, mask the
tokens at or after context_lens[s] with -inf, group the query heads as (kv_heads, group); matmuls, no einsum
(MindSpore 2.10 has no CPU einsum kernel)."""

from mindspore import nn, ops

DIAGNOSIS = None


def run_paged_attention(query, key_cache, value_cache, block_tables, context_lens):
    seqs, heads, d = query.shape
    kv_heads = key_cache.shape[2]
    flat = block_tables.reshape(-1)
    keys = ops.gather(key_cache, flat, 0).reshape(seqs, -1, kv_heads, d)  # (seqs, tokens, kv, d)
    values = ops.gather(value_cache, flat, 0).reshape(seqs, -1, kv_heads, d)
    q = query.reshape(seqs, kv_heads, heads // kv_heads, d)  # (seqs, kv, group, d)
    scores = ops.matmul(q, keys.transpose(0, 2, 3, 1)) / d**0.5  # (seqs, kv, group, tokens)
    valid = ops.arange(keys.shape[1])[None, :] < context_lens[:, None]  # (seqs, tokens)
    scores = ops.masked_fill(scores, ~valid[:, None, None, :], float("-inf"))
    weights = nn.Softmax(axis=-1)(scores)
    out = ops.matmul(weights, values.transpose(0, 2, 1, 3))  # (seqs, kv, group, d)
    return out.reshape(seqs, heads, d).astype(query.dtype)
