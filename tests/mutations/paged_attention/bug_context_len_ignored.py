"""Gathers every block the table lists and attends to all of their slots: the stale slots after the last
token and the unused table entries count as tokens."""

import math

import torch

DIAGNOSIS = "context_len_ignored"


def run_paged_attention(query, key_cache, value_cache, block_tables, context_lens):
    seqs, heads, d = query.shape
    group = heads // key_cache.shape[2]
    keys = key_cache[block_tables].flatten(1, 2).repeat_interleave(group, dim=2)  # (seqs, tokens, heads, d)
    values = value_cache[block_tables].flatten(1, 2).repeat_interleave(group, dim=2)
    scores = torch.einsum("shd,sthd->sht", query.float(), keys.float()) / math.sqrt(d)
    return torch.einsum("sht,sthd->shd", scores.softmax(-1), values.float()).to(query.dtype)
