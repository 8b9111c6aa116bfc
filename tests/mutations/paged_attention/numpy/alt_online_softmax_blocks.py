"""vLLM's kernel as NumPy loops: per sequence, its blocks one at a time with an online softmax (running max,
running sum, rescaled accumulator), the slots after the last token masked in the last block."""

import math

import numpy as np

DIAGNOSIS = None


def run_paged_attention(query, key_cache, value_cache, block_tables, context_lens):
    seqs, heads, d = query.shape
    block_size, kv_heads = key_cache.shape[1], key_cache.shape[2]
    work = np.promote_types(query.dtype, np.float32)
    kv_of_head = np.arange(heads) // (heads // kv_heads)
    out = np.empty((seqs, heads, d), dtype=work)
    for s in range(seqs):
        n = int(context_lens[s])
        q = query[s].astype(work) / math.sqrt(d)
        m = np.full(heads, -np.inf, dtype=work)
        total = np.zeros(heads, dtype=work)
        acc = np.zeros((heads, d), dtype=work)
        for i in range(-(-n // block_size)):
            k = key_cache[block_tables[s, i]][:, kv_of_head].astype(work)  # (block_size, heads, d)
            v = value_cache[block_tables[s, i]][:, kv_of_head].astype(work)
            scores = np.einsum("hd,thd->ht", q, k)
            scores[:, np.arange(block_size) + i * block_size >= n] = -np.inf
            m_new = np.maximum(m, scores.max(axis=-1))
            p = np.exp(scores - m_new[:, None])
            factor = np.exp(m - m_new)
            total = total * factor + p.sum(axis=-1)
            acc = acc * factor[:, None] + np.einsum("ht,thd->hd", p, v)
            m = m_new
        out[s] = acc / total[:, None]
    return out.astype(query.dtype)
