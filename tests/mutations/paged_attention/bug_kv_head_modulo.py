"""Expands the kv heads with repeat (tile) instead of repeat_interleave: query head h meets kv head
h % kv_heads, so heads 0 and 1 use different kv heads instead of sharing kv head 0."""

import math

import torch

DIAGNOSIS = "kv_head_modulo"


def run_paged_attention(query, key_cache, value_cache, block_tables, context_lens):
    block_size = key_cache.shape[1]
    work = torch.promote_types(query.dtype, torch.float32)
    group = query.shape[1] // key_cache.shape[2]
    out = []
    for s in range(query.shape[0]):
        n = int(context_lens[s])
        blocks = block_tables[s, : (n + block_size - 1) // block_size]
        k = key_cache[blocks].flatten(0, 1)[:n].repeat(1, group, 1).to(work)  # (n, heads, d)
        v = value_cache[blocks].flatten(0, 1)[:n].repeat(1, group, 1).to(work)
        w = (torch.einsum("hd,thd->ht", query[s].to(work), k) / math.sqrt(query.shape[-1])).softmax(-1)
        out.append(torch.einsum("ht,thd->hd", w, v))
    return torch.stack(out).to(query.dtype)
