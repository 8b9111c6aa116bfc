# Your implementation: keep every function's name, arguments and annotations; replace each
# `raise NotImplementedError`. `attnlab check <exercise>` checks one exercise, `attnlab status` all.
"""Paged attention (vLLM, Kwon et al. 2023): decoding against a KV cache stored in fixed-size blocks.

A server decoding many sequences at once cannot give each one a contiguous cache of its maximum length: the
memory would sit reserved and unused. vLLM cuts the cache into blocks of block_size tokens, like pages of
virtual memory. A shared pool holds every block, key_cache[block, slot, kv_head, :]; each sequence owns a
block table listing its blocks in order, so its token t lives in block block_tables[s, t // block_size] at
slot t % block_size. Blocks need not be adjacent nor in order, two sequences that start with the same
prompt may share its blocks (prefix sharing), and the last block is filled only up to the sequence's
length: slots after context_lens[s] and table entries after the last block hold whatever was there.

Each sequence decodes one token: its query (one vector per head) attends to the sequence's context_lens[s]
cached tokens (its own key included, so causal attention's last row), with grouped heads as in GQA.
"""

import math

import torch
from jaxtyping import Float, Int
from torch import Tensor


def run_paged_attention(
    query: Float[Tensor, "seqs heads d"],
    key_cache: Float[Tensor, "blocks block_size kv_heads d"],
    value_cache: Float[Tensor, "blocks block_size kv_heads d"],
    block_tables: Int[Tensor, "seqs max_blocks"],
    context_lens: Int[Tensor, " seqs"],
) -> Float[Tensor, "seqs heads d"]:
    """One decoding step of every sequence against its paged KV cache.

    Sequence s has context_lens[s] ≥ 1 cached tokens; token t is at key_cache[block_tables[s, t // block_size],
    t % block_size]. Query head h uses kv head h // (heads // kv_heads) (heads is a multiple of kv_heads).
    Scores q·k / √d, a softmax over the sequence's tokens, the weighted sum of their values. Table entries
    after a sequence's last block, and slots after its last token, are unused and may hold anything.

    Args:
        query: the new token's query of every sequence, shape (seqs, heads, d).
        key_cache: the pool of key blocks, shape (blocks, block_size, kv_heads, d).
        value_cache: the pool of value blocks, same shape as key_cache.
        block_tables: int64, shape (seqs, max_blocks): the blocks of each sequence, in order.
        context_lens: int64, shape (seqs,): how many cached tokens each sequence has (1 ≤ len ≤
            max_blocks · block_size).

    Returns:
        Shape (seqs, heads, d), dtype and device of query; the arguments are not modified.

    中文：分页注意力（vLLM）：KV 缓存按每块 block_size 个词元存放在共享块池中；序列 s 的第 t 个词元位于
    key_cache[block_tables[s, t // block_size], t % block_size]。每个序列的查询关注它的 context_lens[s] 个
    词元（分组查询头：头 h 使用键/值头 h // (heads // kv_heads)），返回 (seqs, heads, d)，dtype 与 query 相同。
    """
    raise NotImplementedError("exercise paged_attention: implement run_paged_attention")


