"""Builds a (seqs, tokens) index of flat pool slots from the tables (block · block_size + slot), gathers with
it, and groups the heads with einops."""

import torch
from einops import rearrange

DIAGNOSIS = None


def run_paged_attention(query, key_cache, value_cache, block_tables, context_lens):
    block_size, kv_heads = key_cache.shape[1], key_cache.shape[2]
    work = torch.promote_types(query.dtype, torch.float32)
    tokens = block_tables.shape[1] * block_size
    t = torch.arange(tokens, device=query.device)
    flat_slot = block_tables[:, t // block_size] * block_size + t % block_size  # (seqs, tokens)
    keys = key_cache.flatten(0, 1)[flat_slot].to(work)  # (seqs, tokens, kv, d)
    values = value_cache.flatten(0, 1)[flat_slot].to(work)
    q = rearrange(query.to(work), "s (k g) d -> s k g d", k=kv_heads)
    scores = torch.einsum("skgd,stkd->skgt", q, keys) / query.shape[-1] ** 0.5
    pad = t[None, :] >= context_lens.to(query.device)[:, None]
    weights = scores.masked_fill(pad[:, None, None, :], float("-inf")).softmax(-1)
    out = torch.einsum("skgt,stkd->skgd", weights, values)
    return rearrange(out, "s k g d -> s (k g) d").to(query.dtype)
