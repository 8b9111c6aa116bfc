"""Wrong paged attention: the context length ignored or cut wrong, the block table misread, grouped heads
mapped by modulo, scores left unscaled. Each reads tokens through `paged`, one knob per mistake."""

import math

import torch


def paged(query, key_cache, value_cache, block_tables, context_lens, *, tokens="context", index="table",
          kv_head="group", scaled=True):
    """(seqs, heads, d) with these slips:

    tokens: "context" (context_lens[s]), "all" (every slot of every table entry), "blocks" (the used blocks
        whole), "one_less" (context_lens[s] − 1, at least 1).
    index: "table" (token t at table entry t // bs, slot t % bs), "swapped" (entry t % bs, slot t // bs),
        "pool" (entry i read from pool index i, the table ignored).
    kv_head: "group" (h // (heads / kv_heads)) or "modulo" (h % kv_heads).
    """
    work = torch.promote_types(query.dtype, torch.float64)
    block_size, kv_heads = key_cache.shape[1], key_cache.shape[2]
    heads = query.shape[1]
    outputs = []
    for s in range(query.shape[0]):
        length = int(context_lens[s])
        count = {"context": length, "all": block_tables.shape[1] * block_size,
                 "blocks": math.ceil(length / block_size) * block_size, "one_less": max(1, length - 1)}[tokens]
        t = torch.arange(count)
        entry, slot = (t % block_size, t // block_size) if index == "swapped" else (t // block_size, t % block_size)
        block = entry if index == "pool" else block_tables[s][entry].long()
        keys, values = key_cache[block, slot].to(work), value_cache[block, slot].to(work)  # (count, kv_heads, d)
        h = torch.arange(heads)
        kv = h % kv_heads if kv_head == "modulo" else h // (heads // kv_heads)
        scores = torch.einsum("hd,thd->ht", query[s].to(work), keys[:, kv])
        weights = torch.softmax(scores / (math.sqrt(query.shape[-1]) if scaled else 1.0), dim=-1)
        outputs.append(torch.einsum("ht,thd->hd", weights, values[:, kv]))
    return torch.stack(outputs).to(query.dtype)


def context_len_ignored(query, key_cache, value_cache, block_tables, context_lens):
    """Every slot of every table entry is attended to."""
    return paged(query, key_cache, value_cache, block_tables, context_lens, tokens="all")


def last_block_whole(query, key_cache, value_cache, block_tables, context_lens):
    """The used blocks are attended to whole, the unfilled slots of the last one included."""
    return paged(query, key_cache, value_cache, block_tables, context_lens, tokens="blocks")


def block_and_slot_swapped(query, key_cache, value_cache, block_tables, context_lens):
    """Token t read from table entry t % block_size, slot t // block_size."""
    return paged(query, key_cache, value_cache, block_tables, context_lens, index="swapped")


def table_ignored(query, key_cache, value_cache, block_tables, context_lens):
    """The sequence's i-th block read from pool index i."""
    return paged(query, key_cache, value_cache, block_tables, context_lens, index="pool")


def kv_head_modulo(query, key_cache, value_cache, block_tables, context_lens):
    """Query head h reads kv head h % kv_heads."""
    return paged(query, key_cache, value_cache, block_tables, context_lens, kv_head="modulo")


def own_key_left_out(query, key_cache, value_cache, block_tables, context_lens):
    """Only the first context_lens[s] − 1 tokens: the newest key thought not yet cached."""
    return paged(query, key_cache, value_cache, block_tables, context_lens, tokens="one_less")


def unscaled_scores(query, key_cache, value_cache, block_tables, context_lens):
    """Scores q·k without 1/√d."""
    return paged(query, key_cache, value_cache, block_tables, context_lens, scaled=False)
