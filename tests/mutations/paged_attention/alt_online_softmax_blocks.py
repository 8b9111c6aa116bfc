"""vLLM's kernel in Python: for each sequence, walk its blocks one at a time with an online softmax (running
max, running sum, rescaled accumulator), masking the slots after the last token in the last block."""

import math

import torch

DIAGNOSIS = None


def run_paged_attention(query, key_cache, value_cache, block_tables, context_lens):
    block_size, kv_heads = key_cache.shape[1], key_cache.shape[2]
    work = torch.promote_types(query.dtype, torch.float32)
    heads, d = query.shape[1], query.shape[2]
    kv_of_head = torch.arange(heads, device=query.device) // (heads // kv_heads)
    out = torch.empty(query.shape, dtype=work, device=query.device)
    for s in range(query.shape[0]):
        n = int(context_lens[s])
        q = query[s].to(work) / math.sqrt(d)
        m = torch.full((heads,), float("-inf"), dtype=work, device=query.device)
        total = torch.zeros(heads, dtype=work, device=query.device)
        acc = torch.zeros(heads, d, dtype=work, device=query.device)
        for i in range(math.ceil(n / block_size)):
            block = block_tables[s, i]
            k = key_cache[block][:, kv_of_head].to(work)  # (block_size, heads, d)
            v = value_cache[block][:, kv_of_head].to(work)
            scores = torch.einsum("hd,thd->ht", q, k)
            slots = torch.arange(block_size, device=query.device) + i * block_size
            scores = scores.masked_fill(slots[None, :] >= n, float("-inf"))
            m_new = torch.maximum(m, scores.max(dim=-1).values)
            p = torch.exp(scores - m_new[:, None])
            factor = torch.exp(m - m_new)
            total = total * factor + p.sum(-1)
            acc = acc * factor[:, None] + torch.einsum("ht,thd->hd", p, v)
            m = m_new
        out[s] = acc / total[:, None]
    return out.to(query.dtype)
