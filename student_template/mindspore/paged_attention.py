# Your implementation: keep every function's name, arguments and annotations; replace each
# `raise NotImplementedError`. `attnlab check <exercise>` checks one exercise, `attnlab status` all.
"""Paged attention (vLLM) in MindSpore: decoding against a KV cache stored in fixed-size blocks.

A shared pool holds every block, key_cache[block, slot, kv_head, :]; each sequence owns a block table listing
its blocks in order, so its token t lives in block block_tables[s, t // block_size] at slot t % block_size.
Blocks need not be adjacent nor in order, sequences may share blocks (a common prompt), and the last block
is filled only up to the sequence's length. Each sequence decodes one token: its query attends to its
context_lens[s] cached tokens, with grouped heads as in GQA.
"""

import math

import mindspore
from jaxtyping import Float, Int
from mindspore import ops


def run_paged_attention(
    query: Float[mindspore.Tensor, "seqs heads d"],
    key_cache: Float[mindspore.Tensor, "blocks block_size kv_heads d"],
    value_cache: Float[mindspore.Tensor, "blocks block_size kv_heads d"],
    block_tables: Int[mindspore.Tensor, "seqs max_blocks"],
    context_lens: Int[mindspore.Tensor, " seqs"],
) -> Float[mindspore.Tensor, "seqs heads d"]:
    """One decoding step of every sequence against its paged KV cache.

    Token t of sequence s is key_cache[block_tables[s, t // block_size], t % block_size]; query head h reads
    kv head h // (heads // kv_heads); scores q·k / √d, a softmax over the sequence's context_lens[s] tokens.

    Returns:
        A new mindspore.Tensor (seqs, heads, d) of the dtype of query.

    中文：分页注意力：序列 s 的第 t 个词元位于 key_cache[block_tables[s, t // block_size], t % block_size]；
    每个序列的查询关注它的 context_lens[s] 个词元，返回 (seqs, heads, d)，dtype 与 query 相同。
    """
    raise NotImplementedError("exercise paged_attention: implement run_paged_attention")


