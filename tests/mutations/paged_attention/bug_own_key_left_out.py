"""Thinks the new token's key is not in the cache yet and attends to tokens 0 .. context_lens[s] − 2 only
(with at least one token)."""

import math

import torch

DIAGNOSIS = "own_key_left_out"


def run_paged_attention(query, key_cache, value_cache, block_tables, context_lens):
    block_size = key_cache.shape[1]
    work = torch.promote_types(query.dtype, torch.float32)
    group = query.shape[1] // key_cache.shape[2]
    out = []
    for s in range(query.shape[0]):
        n = max(1, int(context_lens[s]) - 1)
        t = torch.arange(n, device=query.device)
        blocks = block_tables[s, t // block_size]
        k = key_cache[blocks, t % block_size].repeat_interleave(group, dim=1).to(work)
        v = value_cache[blocks, t % block_size].repeat_interleave(group, dim=1).to(work)
        w = (torch.einsum("hd,thd->ht", query[s].to(work), k) / math.sqrt(query.shape[-1])).softmax(-1)
        out.append(torch.einsum("ht,thd->hd", w, v))
    return torch.stack(out).to(query.dtype)
