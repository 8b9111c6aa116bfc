"""kv_cache_attention: its laws (decoding and chunked prefill equal one causal pass) and its picture (the mask
growing with the cache). No example(): it returns three tensors, and the generic example checks read one."""

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from attnlab.core.i18n import Message
from attnlab.core.laws import base_args, drawn, expect_close, law, noise
from attnlab.core.pictures import F64, SEQ, Picture, eye
from attnlab.core.pictures import randn as picture_randn
from attnlab.core.spec import Text

MESSAGES = {
    "chunk": {
        "en": "after a cache of {cached} tokens, {t_new} new tokens fed in chunks {chunks}: the output of the tokens "
              "at positions {first}..{last} differs from the one call with all {t_new} new tokens",
        "zh": "在缓存了 {cached} 个词元之后，把 {t_new} 个新词元按块 {chunks} 依次输入："
              "位置 {first}..{last} 上词元的输出与一次输入全部 {t_new} 个新词元时的输出不同"},
}


def _calls(Q, K, V, k_cache, v_cache, bounds: list[int]) -> list[dict[str, Any]]:
    """One call with every new token, then one call per chunk [a, b) of the new tokens, whose cache is the
    given cache followed by the new keys and values before a (what a correct earlier call returned)."""
    def new(x, a, b):
        return x[..., a:b, :].clone()

    calls = [{"Q": Q, "K": K, "V": V, "k_cache": k_cache, "v_cache": v_cache}]
    for a, b in zip(bounds, bounds[1:]):
        calls.append({"Q": new(Q, a, b), "K": new(K, a, b), "V": new(V, a, b),
                      "k_cache": torch.cat([k_cache, new(K, 0, a)], dim=-2),
                      "v_cache": torch.cat([v_cache, new(V, 0, a)], dim=-2)})
    return calls


def _expect_chunks_match(ctx, calls: list[dict[str, Any]], bounds: list[int]) -> None:
    """Each chunk's output equals the rows a..b-1 of the first call's output."""
    outputs = ctx.outputs(calls)
    whole = next(outputs)[0]
    t_past = calls[0]["k_cache"].shape[-2]
    chunks = [b - a for a, b in zip(bounds, bounds[1:])]
    for (a, b), (out, _, _) in zip(zip(bounds, bounds[1:]), outputs):
        what = Message("kv_cache_attention.chunk", {"cached": t_past, "t_new": bounds[-1], "chunks": chunks,
                                                    "first": t_past + a, "last": t_past + b - 1})
        expect_close(ctx, out, whole[..., a:b, :], what)


@law
def decoding_matches_full_pass(ctx, base_case: str) -> None:
    """Feeding the base case's new tokens one at a time (each call's cache: the case's cache plus the new
    tokens before it) gives the same outputs as one call with all of them; with an empty cache, that is
    token-by-token generation against one causal pass. Each step's cache is built here from the right
    prefix, so a wrong returned cache is the cases' to report, and all calls go out in one request."""
    args = base_args(ctx, base_case)
    bounds = list(range(args["Q"].shape[-2] + 1))
    _expect_chunks_match(ctx, _calls(**args, bounds=bounds), bounds)


def _chunking_inputs() -> dict:
    from hypothesis import strategies as st

    return {"t_past": st.integers(0, 6), "t_new": st.integers(2, 10), "d": st.sampled_from([2, 4, 8]),
            "heads": st.integers(1, 3), "cuts": st.lists(st.integers(0, 8), min_size=1, max_size=4),
            "seed": st.integers(0, 2**31)}


@law(draws=_chunking_inputs)
def chunked_prefill_matches_full_pass(ctx, examples: int = 12) -> None:
    """A prompt fed in chunks of any sizes (after a cache of any length, empty included) gives the outputs
    of one call with the whole prompt (float32, a head axis of 1..3)."""
    for example in drawn("chunked_prefill_matches_full_pass", examples):
        t_past, t_new, d, seed = example["t_past"], example["t_new"], example["d"], example["seed"]
        shape = torch.empty(example["heads"], t_past + t_new, d)
        K, V = noise(shape, seed), noise(shape, seed + 1)
        Q = noise(shape[..., t_past:, :], seed + 2)
        bounds = sorted({0, t_new, *(1 + c % (t_new - 1) for c in example["cuts"])})  # at least one cut
        calls = _calls(Q, K[..., t_past:, :].clone(), V[..., t_past:, :].clone(), K[..., :t_past, :].clone(),
                       V[..., :t_past, :].clone(), bounds)
        _expect_chunks_match(ctx, calls, bounds)


PROMPT, CHUNK = 3, 2  # the picture feeds 3 prompt tokens at once, then 2, then one token at a time


def _picture(call: Callable) -> np.ndarray:
    """V = identity (token t's value is e_t), so each output row is that token's weights over the keys so far;
    rows 0..2 come from a prefill, rows 3..4 from a chunk of 2, rows 5..7 from single decoding steps."""
    Q, K, V = picture_randn(11, SEQ, SEQ), picture_randn(12, SEQ, SEQ), eye(SEQ)
    k_cache = v_cache = torch.zeros(0, SEQ, dtype=F64)
    rows, start = [], 0
    for size in (PROMPT, CHUNK, *[1] * (SEQ - PROMPT - CHUNK)):
        new = slice(start, start + size)
        output, k_cache, v_cache = call(Q=Q[new], K=K[new], V=V[new], k_cache=k_cache, v_cache=v_cache)
        rows.append(output.detach().to("cpu", F64))
        start += size
    return torch.cat(rows).numpy()[None]


PICTURE = Picture(_picture, "weights", Text(
    en="V = identity: row t is token t's weights over the keys so far; rows 0-2 prefill from an empty cache, "
       "rows 3-4 one chunk, rows 5-7 one token at a time. The lower triangle grows with the cache",
    zh="V 取单位矩阵：第 t 行是词元 t 对已有各键的权重；第 0-2 行为空缓存时的预填充，第 3-4 行为一个块，"
       "第 5-7 行逐个词元解码。下三角随缓存增长"))
