"""Computes each token's place token by token, but with the division and the remainder exchanged: table
entry t % block_size, slot t // block_size (an index error whenever t % block_size reaches max_blocks)."""

import math

import torch

DIAGNOSIS = "block_and_slot_swapped"


def run_paged_attention(query, key_cache, value_cache, block_tables, context_lens):
    block_size = key_cache.shape[1]
    work = torch.promote_types(query.dtype, torch.float32)
    group = query.shape[1] // key_cache.shape[2]
    out = []
    for s in range(query.shape[0]):
        t = torch.arange(int(context_lens[s]), device=query.device)
        blocks = block_tables[s, t % block_size]
        k = key_cache[blocks, t // block_size].repeat_interleave(group, dim=1).to(work)
        v = value_cache[blocks, t // block_size].repeat_interleave(group, dim=1).to(work)
        w = (torch.einsum("hd,thd->ht", query[s].to(work), k) / math.sqrt(query.shape[-1])).softmax(-1)
        out.append(torch.einsum("ht,thd->hd", w, v))
    return torch.stack(out).to(query.dtype)
