"""Zeroes the stale slots of each sequence's last block in the shared pool before attending (so that
gathering whole blocks would be harmless): the output is right, but it writes into the caller's cache,
which other sequences share."""

import math

import torch

DIAGNOSIS = None


def run_paged_attention(query, key_cache, value_cache, block_tables, context_lens):
    block_size = key_cache.shape[1]
    work = torch.promote_types(query.dtype, torch.float32)
    group = query.shape[1] // key_cache.shape[2]
    out = []
    for s in range(query.shape[0]):
        n = int(context_lens[s])
        last, used = block_tables[s, (n - 1) // block_size], (n - 1) % block_size + 1
        key_cache[last, used:] = 0
        value_cache[last, used:] = 0
        t = torch.arange(n, device=query.device)
        blocks = block_tables[s, t // block_size]
        k = key_cache[blocks, t % block_size].repeat_interleave(group, dim=1).to(work)
        v = value_cache[blocks, t % block_size].repeat_interleave(group, dim=1).to(work)
        w = (torch.einsum("hd,thd->ht", query[s].to(work), k) / math.sqrt(query.shape[-1])).softmax(-1)
        out.append(torch.einsum("ht,thd->hd", w, v))
    return torch.stack(out).to(query.dtype)
