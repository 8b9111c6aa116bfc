"""flash_attention: its laws (tiles change nothing; O is attention; L is the log-sum-exp of the scores),
its picture (the weights through tiles that do not divide the length) and an example call.

The laws need no reference: block sizes are checked against each other, and O and L against plain
attention computed here in float64 from the same inputs, whatever the tiling.
"""

import math
from collections.abc import Callable

import numpy as np
import torch

from attnlab.core.examples import Example, randn
from attnlab.core.i18n import Message
from attnlab.core.laws import drawn, expect_close, law, noise
from attnlab.core.pictures import SEQ, Picture, eye
from attnlab.core.pictures import randn as picture_randn
from attnlab.core.spec import Text

MESSAGES = {
    "blocks_differ": {
        "en": "{shape}, is_causal={is_causal}: {name} with block_q={bq}, block_k={bk} differs from {name} with "
              "one tile holding every score (block_q={one_q}, block_k={one_k}); tiles must not change the result",
        "zh": "{shape}，is_causal={is_causal}：block_q={bq}、block_k={bk} 时的 {name} 与一个块容纳全部分数"
              "（block_q={one_q}、block_k={one_k}）时的 {name} 不同；分块不应改变结果"},
    "not_attention": {
        "en": "{shape}, is_causal={is_causal}, block_q={bq}, block_k={bk}: O differs from softmax(Q Kᵀ / √d_k) V",
        "zh": "{shape}，is_causal={is_causal}，block_q={bq}，block_k={bk}：O 与 softmax(Q Kᵀ / √d_k) V 不同"},
    "not_logsumexp": {
        "en": "{shape}, is_causal={is_causal}, block_q={bq}, block_k={bk}: L differs from logsumexp(Q Kᵀ / √d_k) "
              "over the keys each query may attend to",
        "zh": "{shape}，is_causal={is_causal}，block_q={bq}，block_k={bk}：L 与每个查询可关注的键上的 "
              "logsumexp(Q Kᵀ / √d_k) 不同"},
}


def _flash_inputs() -> dict:
    from hypothesis import strategies as st

    return {"batch": st.integers(1, 2), "queries": st.integers(1, 24), "extra_keys": st.integers(0, 16),
            "d_k": st.integers(1, 12), "d_v": st.integers(1, 6), "is_causal": st.booleans(),
            "block_q": st.integers(1, 30), "block_k": st.integers(1, 30), "seed": st.integers(0, 2**31)}


def _inputs(example: dict) -> dict:
    """Q, K, V (float32, scores of a few units so the running max moves) for a drawn example."""
    b, q, k = example["batch"], example["queries"], example["queries"] + example["extra_keys"]
    seed = example["seed"]
    return {"Q": noise(torch.empty(b, q, example["d_k"]), seed) * 1.5,
            "K": noise(torch.empty(b, k, example["d_k"]), seed + 1) * 1.5,
            "V": noise(torch.empty(b, k, example["d_v"]), seed + 2), "is_causal": example["is_causal"]}


def scaled_scores(Q: torch.Tensor, K: torch.Tensor, is_causal: bool) -> torch.Tensor:
    """Q Kᵀ / √d_k in float64, -inf where a query may not attend (bottom-right causal alignment)."""
    s = Q.double() @ K.double().transpose(-2, -1) / math.sqrt(Q.shape[-1])  # (..., queries, keys)
    if is_causal:
        queries, keys = s.shape[-2:]
        allowed = torch.ones(queries, keys, dtype=torch.bool).tril(diagonal=keys - queries)
        s = s.masked_fill(~allowed, float("-inf"))
    return s


def _described(call: dict) -> dict:
    return {"shape": f"Q {tuple(call['Q'].shape)}, K {tuple(call['K'].shape)}, V {tuple(call['V'].shape)}",
            "is_causal": call["is_causal"], "bq": call["block_q"], "bk": call["block_k"]}


@law(draws=_flash_inputs)
def flash_block_sizes_agree(ctx, examples: int = 8) -> None:
    """O and L are the same with one tile holding every score as with tiles of 1 × 1, of sizes that do not
    divide the lengths, and with more keys than queries per tile or the other way round."""
    calls, blocks = [], []
    for example in drawn("flash_block_sizes_agree", examples):
        args = _inputs(example)
        whole = (args["Q"].shape[-2], args["K"].shape[-2])
        sizes = [whole, (1, 1), (3, 5), (7, 2), (example["block_q"], example["block_k"])]
        calls += [{**args, "block_q": bq, "block_k": bk} for bq, bk in sizes]
        blocks.append(len(sizes))
    outputs = iter(ctx.outputs(calls))
    calls = iter(calls)
    for count in blocks:
        first_call, first = next(calls), next(outputs)
        for _ in range(count - 1):
            call, got = next(calls), next(outputs)
            for name, g, e in zip(("O", "L"), got, first):
                expect_close(ctx, g, e, Message("flash_attention.blocks_differ", {
                    **_described(call), "name": name, "one_q": first_call["block_q"], "one_k": first_call["block_k"]}))


@law(draws=_flash_inputs)
def flash_equals_attention(ctx, examples: int = 12) -> None:
    """O equals softmax(Q Kᵀ / √d_k) V (computed here in float64) for every drawn shape and block sizes."""
    calls = [{**_inputs(e), "block_q": e["block_q"], "block_k": e["block_k"]}
             for e in drawn("flash_equals_attention", examples)]
    for call, (out, _) in zip(calls, ctx.outputs(calls)):
        weights = torch.softmax(scaled_scores(call["Q"], call["K"], call["is_causal"]), dim=-1)
        expect_close(ctx, out, weights @ call["V"].double(), Message("flash_attention.not_attention", _described(call)))


@law(draws=_flash_inputs)
def flash_lse_is_logsumexp(ctx, examples: int = 12) -> None:
    """L equals torch.logsumexp of the scaled scores over the keys each query may attend to."""
    calls = [{**_inputs(e), "block_q": e["block_q"], "block_k": e["block_k"]}
             for e in drawn("flash_lse_is_logsumexp", examples)]
    for call, (_, L) in zip(calls, ctx.outputs(calls)):
        lse = torch.logsumexp(scaled_scores(call["Q"], call["K"], call["is_causal"]), dim=-1)
        expect_close(ctx, L, lse, Message("flash_attention.not_logsumexp", _described(call)))


def _picture(call: Callable) -> np.ndarray:
    """V = identity makes O the weight matrix; scores that grow along the keys move the running max in
    every tile, so a tile that is not rescaled, skipped or masked wrongly shows as a block."""
    Q = picture_randn(11, SEQ, 4) + 1.0
    K = picture_randn(12, SEQ, 4) + torch.linspace(-1.0, 1.5, SEQ, dtype=torch.float64)[:, None]
    panels = [call(Q=Q, K=K, V=eye(SEQ), is_causal=causal, block_q=3, block_k=2)[0] for causal in (False, True)]
    return np.stack([p.detach().to("cpu", torch.float64).numpy() for p in panels])  # (2, SEQ, SEQ)


PICTURE = Picture(_picture, "weights", Text(
    en="V = identity, tiles of 3 queries × 2 keys (neither divides 8): left full, right is_causal; "
       "the weights must not depend on the tiles",
    zh="V 取单位矩阵，块为 3 个查询 × 2 个键（都不整除 8）：左为全注意力，右为 is_causal；权重不应依赖于分块"))


def example(g: torch.Generator, lead: tuple[int, ...], dtype: torch.dtype) -> Example:
    kwargs = {"Q": randn(g, *lead, 5, 3, dtype=dtype), "K": randn(g, *lead, 7, 3, dtype=dtype),
              "V": randn(g, *lead, 7, 7, dtype=dtype), "is_causal": True, "block_q": 2, "block_k": 3}
    return Example(kwargs, ("Q", "K", "V"), 7)
