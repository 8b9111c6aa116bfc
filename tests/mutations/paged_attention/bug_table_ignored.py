"""Reads the cache as if each sequence's blocks sat at the start of the pool in order: block i of the
sequence is pool block i, so the block table is never used."""

import math

import torch

DIAGNOSIS = "table_ignored"


def run_paged_attention(query, key_cache, value_cache, block_tables, context_lens):
    group = query.shape[1] // key_cache.shape[2]
    work = torch.promote_types(query.dtype, torch.float32)
    out = []
    for s in range(query.shape[0]):
        n = int(context_lens[s])
        k = key_cache.flatten(0, 1)[:n].repeat_interleave(group, dim=1).to(work)  # (n, heads, d)
        v = value_cache.flatten(0, 1)[:n].repeat_interleave(group, dim=1).to(work)
        w = (torch.einsum("hd,thd->ht", query[s].to(work), k) / math.sqrt(query.shape[-1])).softmax(-1)
        out.append(torch.einsum("ht,thd->hd", w, v))
    return torch.stack(out).to(query.dtype)
