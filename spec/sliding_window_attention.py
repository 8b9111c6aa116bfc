"""sliding_window_attention: the laws of a causal window that slides (what lies outside it never matters; it
moves with the tokens; wide it is causal attention, one token wide it is V), its picture and an example."""

import math
from collections.abc import Callable

import numpy as np
import torch

from attnlab.core.examples import Example, randn
from attnlab.core.i18n import Message
from attnlab.core.laws import base_args, drawn, expect_close, law, noise
from attnlab.core.pictures import SEQ, Picture, eye, heads
from attnlab.core.pictures import randn as picture_randn
from attnlab.core.spec import Text

MESSAGES = {
    "future_matters": {
        "en": "window={window}: changing the keys and values at positions {cut}..{last} changed the output at "
              "positions before {cut}; a query never sees later tokens",
        "zh": "window={window}：改变位置 {cut}..{last} 的键和值后，位置 {cut} 之前的输出改变了；"
              "查询永远看不到之后的词元"},
    "too_far_matters": {
        "en": "window={window}: changing the keys and values at positions 0..{before} changed the output at "
              "positions {far}..{last}, whose windows start at {cut} or later; query i sees only keys j > i − window",
        "zh": "window={window}：改变位置 0..{before} 的键和值后，位置 {far}..{last} 的输出改变了，"
              "而这些位置的窗口从 {cut} 或更晚才开始；查询 i 只能看到 j > i − window 的键"},
    "does_not_slide": {
        "en": "window={window}: putting {prefix} token(s) in front of the sequence changed the output of tokens "
              "{first}..{last}, whose windows hold the same tokens as before; the window is each query's own last "
              "`window` tokens, wherever the query sits",
        "zh": "window={window}：在序列前面加入 {prefix} 个词元后，词元 {first}..{last} 的输出改变了，而它们窗口内的词元"
              "与之前完全相同；窗口是每个查询自己最近的 `window` 个词元，与查询所在的位置无关"},
    "not_causal_attention": {
        "en": "window={window} ≥ seq_len={seq}: the output must equal plain causal attention",
        "zh": "window={window} ≥ seq_len={seq}：输出必须等于普通的因果注意力"},
    "window_one": {
        "en": "window=1: every query sees only itself, so the output must equal V",
        "zh": "window=1：每个查询只能看到自身，所以输出必须等于 V"},
}


def _replaced(x: torch.Tensor, positions: slice, seed: int) -> torch.Tensor:
    """x with the tokens at `positions` (along dim -2) replaced by noise three times larger."""
    out = x.clone()
    out[..., positions, :] = noise(out[..., positions, :], seed) * 3
    return out


@law
def only_the_window_matters(ctx, base_case: str) -> None:
    """Split the tokens at cut = seq // 2. New keys and values from the cut on leave every output before it
    unchanged (causal); new keys and values before the cut leave every output from cut + window − 1 on
    unchanged (their windows start at the cut or later)."""
    args = base_args(ctx, base_case)
    window, seq = args["window"], args["Q"].shape[-2]
    cut = seq // 2
    late, early = slice(cut, None), slice(0, cut)
    plain, new_future, new_past = ctx.outputs([
        args, {**args, "K": _replaced(args["K"], late, 31), "V": _replaced(args["V"], late, 32)},
        {**args, "K": _replaced(args["K"], early, 33), "V": _replaced(args["V"], early, 34)}])
    expect_close(ctx, new_future[..., :cut, :], plain[..., :cut, :],
                 Message("sliding_window_attention.future_matters", {"window": window, "cut": cut, "last": seq - 1}))
    far = cut + window - 1
    if far < seq:
        expect_close(ctx, new_past[..., far:, :], plain[..., far:, :],
                     Message("sliding_window_attention.too_far_matters",
                             {"window": window, "before": cut - 1, "far": far, "last": seq - 1, "cut": cut}))


@law
def slides_with_the_sequence(ctx, base_case: str, prefix: int = 1) -> None:
    """Put `prefix` new tokens in front: every token whose window was already full (i ≥ window − 1) sees the
    same keys as before, so its output is unchanged."""
    args = base_args(ctx, base_case)
    window, seq = args["window"], args["Q"].shape[-2]
    longer = {**args, **{name: torch.cat([noise(args[name][..., :prefix, :], 40 + n), args[name]], dim=-2)
                         for n, name in enumerate("QKV")}}
    plain, shifted = ctx.outputs([args, longer])
    first = window - 1
    if first < seq:
        expect_close(ctx, shifted[..., prefix + first:, :], plain[..., first:, :],
                     Message("sliding_window_attention.does_not_slide",
                             {"window": window, "prefix": prefix, "first": first, "last": seq - 1}))


def _wide_inputs() -> dict:
    from hypothesis import strategies as st

    return {"seq": st.integers(1, 12), "d_k": st.integers(1, 8), "d_v": st.integers(1, 6),
            "extra": st.integers(0, 5), "seed": st.integers(0, 2**31)}


@law(draws=_wide_inputs)
def wide_window_is_causal_attention(ctx, examples: int = 10) -> None:
    """window ≥ seq_len: every earlier key is inside the window, so the output is causal attention
    softmax(Q Kᵀ/√d_k + causal mask) V (computed here in float64)."""
    draws = drawn("wide_window_is_causal_attention", examples)
    calls = []
    for e in draws:
        q, k, v = (noise(torch.empty(2, e["seq"], d, dtype=torch.float32), e["seed"] + n)
                   for n, d in enumerate((e["d_k"], e["d_k"], e["d_v"])))
        calls.append({"Q": q, "K": k, "V": v, "window": e["seq"] + e["extra"]})
    for call, out in zip(calls, ctx.outputs(calls)):
        expect_close(ctx, out, _causal_attention(call["Q"], call["K"], call["V"]),
                     Message("sliding_window_attention.not_causal_attention",
                             {"window": call["window"], "seq": call["Q"].shape[-2]}))


def _causal_attention(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor) -> torch.Tensor:
    q, k, v = (t.double() for t in (Q, K, V))
    seq = q.shape[-2]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., seq, seq)
    allowed = torch.ones(seq, seq, dtype=torch.bool).tril()
    return torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1) @ v


@law
def window_one_returns_values(ctx, base_case: str) -> None:
    """window = 1: each query's only key is itself, its weight is 1, and the output is V."""
    args = {**base_args(ctx, base_case), "window": 1}
    expect_close(ctx, ctx.call(args), args["V"], Message("sliding_window_attention.window_one", {}))


PICTURE_WINDOW = 3


def _picture(call: Callable) -> np.ndarray:
    return heads(call(Q=picture_randn(1, SEQ, 4), K=picture_randn(2, SEQ, 4), V=eye(SEQ), window=PICTURE_WINDOW))


PICTURE = Picture(_picture, "weights",
                  Text(en="V = identity, window = 3: the weights fill a band 3 keys wide, ending on the diagonal",
                       zh="V 取单位矩阵，window = 3：权重落在一条宽 3 个键、止于对角线的带上"))


def example(g: torch.Generator, lead: tuple[int, ...], dtype: torch.dtype) -> Example:
    kwargs = {"Q": randn(g, *lead, 5, 3, dtype=dtype), "K": randn(g, *lead, 5, 3, dtype=dtype),
              "V": randn(g, *lead, 5, 7, dtype=dtype), "window": 2}  # d_v = 7 differs from d_k = 3
    return Example(kwargs, ("Q", "K", "V"), 7, causal=True)
