"""Every sequence at once: gather all max_blocks blocks of every table into a padded (seqs, tokens, ...)
batch, mask the positions at or after context_lens[s] with -inf, and share kv heads by viewing the query
heads as (kv_heads, group)."""

import torch

DIAGNOSIS = None


def run_paged_attention(query, key_cache, value_cache, block_tables, context_lens):
    seqs, heads, d = query.shape
    kv_heads = key_cache.shape[2]
    keys = key_cache[block_tables].flatten(1, 2).double()  # (seqs, max_blocks·block_size, kv_heads, d)
    values = value_cache[block_tables].flatten(1, 2).double()
    q = query.double().view(seqs, kv_heads, heads // kv_heads, d)  # (seqs, kv, group, d)
    scores = torch.einsum("skgd,stkd->skgt", q, keys) * d ** -0.5
    positions = torch.arange(keys.shape[1], device=query.device)
    valid = positions[None, :] < context_lens.to(query.device)[:, None]  # (seqs, tokens)
    scores = scores.masked_fill(~valid[:, None, None, :], float("-inf"))
    out = torch.einsum("skgt,stkd->skgd", scores.softmax(dim=-1), values)
    return out.reshape(seqs, heads, d).to(query.dtype)
