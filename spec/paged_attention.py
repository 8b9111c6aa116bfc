"""paged_attention: its laws (it is attention over each sequence's gathered tokens; where the blocks lie in
the pool changes nothing) and its picture (the weights of one sequence whose blocks are scattered).

The first law needs no reference: each drawn layout's expected output is computed here in float64 from the
tokens gathered in order. The second moves the base case's blocks to other places in the pool, fills the
freed places with large stale values and rewrites the tables to match.
"""

import math
from collections.abc import Callable

import numpy as np
import torch

from attnlab.core.i18n import Message
from attnlab.core.laws import base_args, drawn, expect_close, law, noise
from attnlab.core.pictures import SEQ, Picture, eye
from attnlab.core.pictures import randn as picture_randn
from attnlab.core.spec import Text

MESSAGES = {
    "not_attention": {
        "en": "{layout}: the output differs from softmax(q·k / √d) v over each sequence's first context_lens[s] "
              "tokens gathered in order from its blocks",
        "zh": "{layout}：输出与按顺序从各块收集每个序列前 context_lens[s] 个词元后计算的 softmax(q·k / √d) v 不同"},
    "placement": {
        "en": "the blocks of case {case} moved to pool places {moved} (the tables rewritten to match, the freed "
              "places filled with stale values): the output changed; only the table says where a token is",
        "zh": "把用例 {case} 的块移动到块池中的位置 {moved}（相应改写块表，空出的位置填入过期数据）后输出发生了变化；"
              "词元在哪里只由块表决定"},
}


def _layout_inputs() -> dict:
    from hypothesis import strategies as st

    return {"lengths": st.lists(st.integers(1, 13), min_size=1, max_size=3), "block_size": st.integers(1, 5),
            "kv_heads": st.integers(1, 2), "group": st.integers(1, 3), "d": st.sampled_from([2, 4, 8]),
            "spare": st.integers(0, 3), "seed": st.integers(0, 2**31)}


def paged_layout(lengths: list[int], block_size: int, spare: int, seed: int) -> tuple[torch.Tensor, int]:
    """Block tables (seqs, max_blocks) placing every sequence's blocks at scattered pool indices, with
    `spare` blocks nobody uses and unused entries pointing at other blocks; and the pool's size."""
    g = torch.Generator().manual_seed(seed)
    needed = [math.ceil(n / block_size) for n in lengths]
    pool = sum(needed) + spare
    order = torch.randperm(pool, generator=g)
    max_blocks = max(needed) + 1
    tables = torch.randint(0, pool, (len(lengths), max_blocks), generator=g)  # unused entries: anything
    start = 0
    for s, count in enumerate(needed):
        tables[s, :count] = order[start:start + count]
        start += count
    return tables, pool


def gathered_attention(query, key_cache, value_cache, tables, lengths) -> torch.Tensor:
    """float64 softmax(q·k / √d) v over each sequence's tokens, gathered one by one from the tables."""
    block_size, kv_heads = key_cache.shape[1], key_cache.shape[2]
    group = query.shape[1] // kv_heads
    outputs = []
    for s, length in enumerate(lengths):
        t = torch.arange(length)
        blocks = tables[s, t // block_size]
        keys = key_cache[blocks, t % block_size].double().repeat_interleave(group, dim=1)  # (length, heads, d)
        values = value_cache[blocks, t % block_size].double().repeat_interleave(group, dim=1)
        scores = torch.einsum("hd,thd->ht", query[s].double(), keys) / math.sqrt(query.shape[-1])
        outputs.append(torch.einsum("ht,thd->hd", torch.softmax(scores, dim=-1), values))
    return torch.stack(outputs)


@law(draws=_layout_inputs)
def paged_equals_attention(ctx, examples: int = 10) -> None:
    """For drawn lengths, block sizes, grouped heads and scattered layouts (unused entries and stale slots
    included), the output is attention over each sequence's tokens gathered in order."""
    calls, layouts = [], []
    for example in drawn("paged_equals_attention", examples):
        lengths, bs, seed = example["lengths"], example["block_size"], example["seed"]
        tables, pool = paged_layout(lengths, bs, example["spare"], seed)
        kv, d = example["kv_heads"], example["d"]
        cache = torch.empty(pool, bs, kv, d)
        calls.append({"query": noise(torch.empty(len(lengths), kv * example["group"], d), seed + 1) * 1.5,
                      "key_cache": noise(cache, seed + 2) * 1.5, "value_cache": noise(cache, seed + 3),
                      "block_tables": tables, "context_lens": torch.tensor(lengths)})
        layouts.append(f"context_lens={lengths}, block_size={bs}, heads={kv * example['group']}, kv_heads={kv}, "
                       f"block_tables={tables.tolist()}")
    for call, layout, out in zip(calls, layouts, ctx.outputs(calls)):
        expected = gathered_attention(call["query"], call["key_cache"], call["value_cache"], call["block_tables"],
                                      call["context_lens"].tolist())
        expect_close(ctx, out, expected, Message("paged_attention.not_attention", {"layout": layout}))


@law
def paged_placement_invariant(ctx, base_case: str) -> None:
    """Moving every block to another pool index (tables rewritten, freed places filled with stale values of
    magnitude 30) leaves the output unchanged."""
    args = base_args(ctx, base_case)
    pool = args["key_cache"].shape[0]
    where = torch.randperm(2 * pool, generator=torch.Generator().manual_seed(7))[:pool]  # old block b -> where[b]
    moved = {}
    for name in ("key_cache", "value_cache"):
        stale = noise(torch.empty(2 * pool, *args[name].shape[1:], dtype=args[name].dtype), 9) * 30
        stale[where] = args[name]
        moved[name] = stale
    tables = where[args["block_tables"].long()]
    original, relocated = ctx.outputs([args, {**args, **moved, "block_tables": tables}])
    expect_close(ctx, relocated, original,
                 Message("paged_attention.placement", {"case": base_case, "moved": where.tolist()}))


BLOCK = 3  # the picture: 8 tokens in blocks of 3 scattered over a pool of 5


def _picture(call: Callable) -> np.ndarray:
    """Row t decodes token t with a context of t + 1 tokens; V = identity (token t's value is e_t), so a row
    is that step's weights over the tokens: a lower triangle however the blocks are scattered."""
    keys, values = picture_randn(31, SEQ, SEQ), eye(SEQ)
    table = torch.tensor([[4, 0, 2, 1]])  # tokens 0-2 in block 4, 3-5 in block 0, 6-7 in block 2
    t = torch.arange(SEQ)
    key_cache, value_cache = torch.zeros(5, BLOCK, 1, SEQ, dtype=torch.float64), torch.zeros(5, BLOCK, 1, SEQ,
                                                                                            dtype=torch.float64)
    key_cache[table[0, t // BLOCK], t % BLOCK, 0] = keys
    value_cache[table[0, t // BLOCK], t % BLOCK, 0] = values
    queries = picture_randn(32, SEQ, 1, SEQ)
    out = call(query=queries, key_cache=key_cache, value_cache=value_cache, block_tables=table.repeat(SEQ, 1),
               context_lens=t + 1)
    return out[:, 0, :].detach().to("cpu", torch.float64).numpy()[None]


PICTURE = Picture(_picture, "weights", Text(
    en="8 sequences sharing one prompt's blocks (4, 0, 2: scattered), sequence t with t + 1 tokens; V = identity, "
       "so row t is its weights over the tokens in order: a lower triangle",
    zh="8 个序列共享同一提示词的块（4、0、2：分散存放），序列 t 有 t + 1 个词元；V 取单位矩阵，因此第 t 行是它按顺序"
       "对各词元的权重：一个下三角"))
