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
    # BEGIN SOLUTION
    lengths = context_lens.asnumpy().tolist()  # Python ints: how many blocks and slots each sequence uses
    outputs = []
    for s in range(query.shape[0]):
        keys, values = _gather_sequence(key_cache, value_cache, block_tables[s], int(lengths[s]))
        outputs.append(_attend_one_query(query[s], keys, values))
    return ops.stack(outputs)  # (seqs, heads, d)
    # END SOLUTION


# BEGIN SOLUTION
def _gather_sequence(key_cache: mindspore.Tensor, value_cache: mindspore.Tensor, table: mindspore.Tensor,
                     length: int) -> tuple[mindspore.Tensor, mindspore.Tensor]:
    """The sequence's keys and values in token order, (length, kv_heads, d) each."""
    block_size, kv_heads, d = key_cache.shape[1:]
    used = table[: math.ceil(length / block_size)]  # (n_blocks,)
    keys = ops.gather(key_cache, used, 0).reshape(-1, kv_heads, d)[:length]  # (length, kv_heads, d)
    values = ops.gather(value_cache, used, 0).reshape(-1, kv_heads, d)[:length]
    return keys, values


def _attend_one_query(q: mindspore.Tensor, keys: mindspore.Tensor, values: mindspore.Tensor) -> mindspore.Tensor:
    """softmax(q·k / √d) v per head: q (heads, d), keys and values (length, kv_heads, d)."""
    group = q.shape[0] // keys.shape[1]
    keys = ops.repeat_interleave(keys, group, axis=1).swapaxes(0, 1)  # (heads, length, d): head h, kv head h // group
    values = ops.repeat_interleave(values, group, axis=1).swapaxes(0, 1)
    scores = ops.matmul(keys, q[:, :, None])[:, :, 0] / math.sqrt(q.shape[-1])  # (heads, length)
    weights = ops.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return ops.matmul(weights[:, None, :], values)[:, 0, :]  # (heads, d)
# END SOLUTION
