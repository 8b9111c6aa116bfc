"""Paged attention (vLLM) in NumPy: decoding against a KV cache stored in fixed-size blocks.

A shared pool holds every block, key_cache[block, slot, kv_head, :]; each sequence owns a block table listing
its blocks in order, so its token t lives in block block_tables[s, t // block_size] at slot t % block_size.
Blocks need not be adjacent nor in order, sequences may share blocks (a common prompt), and the last block
is filled only up to the sequence's length. Each sequence decodes one token: its query attends to its
context_lens[s] cached tokens, with grouped heads as in GQA.
"""

import math

import numpy as np
from jaxtyping import Float, Int


def run_paged_attention(
    query: Float[np.ndarray, "seqs heads d"],
    key_cache: Float[np.ndarray, "blocks block_size kv_heads d"],
    value_cache: Float[np.ndarray, "blocks block_size kv_heads d"],
    block_tables: Int[np.ndarray, "seqs max_blocks"],
    context_lens: Int[np.ndarray, " seqs"],
) -> Float[np.ndarray, "seqs heads d"]:
    """One decoding step of every sequence against its paged KV cache.

    Token t of sequence s is key_cache[block_tables[s, t // block_size], t % block_size]; query head h reads
    kv head h // (heads // kv_heads); scores q·k / √d, a softmax over the sequence's context_lens[s] tokens.

    Returns:
        A new numpy.ndarray (seqs, heads, d) of the dtype of query (bfloat16 computed in float32).

    中文：分页注意力：序列 s 的第 t 个词元位于 key_cache[block_tables[s, t // block_size], t % block_size]；
    每个序列的查询关注它的 context_lens[s] 个词元，返回 (seqs, heads, d)，dtype 与 query 相同。
    """
    # BEGIN SOLUTION
    work = np.promote_types(query.dtype, np.float32)  # bfloat16: compute in float32
    outputs = []
    for s in range(query.shape[0]):
        keys, values = _gather_sequence(key_cache, value_cache, block_tables[s], int(context_lens[s]))
        outputs.append(_attend_one_query(query[s].astype(work), keys.astype(work), values.astype(work)))
    return np.stack(outputs).astype(query.dtype)  # (seqs, heads, d)
    # END SOLUTION


# BEGIN SOLUTION
def _gather_sequence(key_cache: np.ndarray, value_cache: np.ndarray, table: np.ndarray,
                     length: int) -> tuple[np.ndarray, np.ndarray]:
    """The sequence's keys and values in token order, (length, kv_heads, d) each."""
    block_size = key_cache.shape[1]
    used = table[: math.ceil(length / block_size)]  # (n_blocks,)
    keys = key_cache[used].reshape(-1, *key_cache.shape[2:])[:length]  # (length, kv_heads, d)
    values = value_cache[used].reshape(-1, *value_cache.shape[2:])[:length]
    return keys, values


def _attend_one_query(q: np.ndarray, keys: np.ndarray, values: np.ndarray) -> np.ndarray:
    """softmax(q·k / √d) v per head: q (heads, d), keys and values (length, kv_heads, d)."""
    group = q.shape[0] // keys.shape[1]
    keys = np.repeat(keys, group, axis=1)  # (length, heads, d): head h reads kv head h // group
    values = np.repeat(values, group, axis=1)
    scores = np.einsum("hd,thd->ht", q, keys) / math.sqrt(q.shape[-1])  # (heads, length)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return np.einsum("ht,thd->hd", weights, values)  # (heads, d)
# END SOLUTION
