"""A loop over tokens in float64: compute each token's block and slot, collect its key and value, then a
plain softmax per head with the kv head picked by integer division."""

import math

import torch

DIAGNOSIS = None


def run_paged_attention(query, key_cache, value_cache, block_tables, context_lens):
    seqs, heads, d = query.shape
    block_size, kv_heads = key_cache.shape[1], key_cache.shape[2]
    result = []
    for s in range(seqs):
        keys, values = [], []
        for t in range(int(context_lens[s])):
            block = int(block_tables[s, t // block_size])
            keys.append(key_cache[block, t % block_size].double())
            values.append(value_cache[block, t % block_size].double())
        keys, values = torch.stack(keys), torch.stack(values)  # (n, kv_heads, d)
        per_head = []
        for h in range(heads):
            kv = h // (heads // kv_heads)
            weights = torch.softmax(keys[:, kv] @ query[s, h].double() / math.sqrt(d), dim=0)  # (n,)
            per_head.append(weights @ values[:, kv])
        result.append(torch.stack(per_head))
    return torch.stack(result).to(query.dtype)
