"""Takes the right number of blocks, ceil(len / block_size), but attends to every slot of the last one."""

import math

import torch

DIAGNOSIS = "last_block_whole"


def run_paged_attention(query, key_cache, value_cache, block_tables, context_lens):
    block_size = key_cache.shape[1]
    work = torch.promote_types(query.dtype, torch.float32)
    group = query.shape[1] // key_cache.shape[2]
    out = []
    for s in range(query.shape[0]):
        blocks = block_tables[s, : -(-int(context_lens[s]) // block_size)]
        k = key_cache[blocks].flatten(0, 1).repeat_interleave(group, dim=1).to(work)  # (tokens, heads, d)
        v = value_cache[blocks].flatten(0, 1).repeat_interleave(group, dim=1).to(work)
        w = (torch.einsum("hd,thd->ht", query[s].to(work), k) / math.sqrt(query.shape[-1])).softmax(-1)
        out.append(torch.einsum("ht,thd->hd", w, v))
    return torch.stack(out).to(query.dtype)
