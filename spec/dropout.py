"""dropout: the laws of inverted dropout (values, rate, independence, eval mode, the generator)."""

import math
from typing import Any

import torch

from attnlab.core.examples import Example, randn
from attnlab.core.i18n import Message
from attnlab.core.laws import base_args, law, noise
from attnlab.core.outcomes import CheckFailure

MESSAGES = {
    "bad_value": {
        "en": "p={p}: output[{i}] = {got:.6g} but x[{i}] = {x:.6g}; each value must be 0 or x/(1-p) = {kept:.6g}",
        "zh": "p={p}：output[{i}] = {got:.6g}，而 x[{i}] = {x:.6g}；每个值必须为 0 或 x/(1-p) = {kept:.6g}"},
    "bad_rate": {
        "en": "p={p}: {zeros} of {size} values were dropped, expected {expected:.0f} ± {bound:.0f} (is p the "
              "probability of dropping, not of keeping?)",
        "zh": "p={p}：{size} 个值中有 {zeros} 个被丢弃，应为 {expected:.0f} ± {bound:.0f}（p 是丢弃的概率，"
              "而不是保留的概率）"},
    "shared_mask": {
        "en": "p={p} on a ({rows}, {cols}) input: some {what} were given the same mask; draw the random numbers "
              "with the input's full shape",
        "zh": "p={p}，输入形状为 ({rows}, {cols})：有些{what}使用了相同的掩码；应按输入的完整形状抽取随机数"},
    "rows": {"en": "rows", "zh": "行"},
    "columns": {"en": "columns", "zh": "列"},
    "eval_changed": {"en": "with training=False the output must equal the input exactly",
                     "zh": "training=False 时输出必须与输入完全相同"},
    "generator_ignored": {
        "en": "two calls with generators seeded alike gave different outputs: draw the random numbers from the "
              "`generator` argument",
        "zh": "两次调用使用了相同种子的生成器，输出却不同：应从 `generator` 参数抽取随机数"},
    "generator_same": {"en": "generators with different seeds gave the same output",
                       "zh": "不同种子的生成器给出了相同的输出"},
}


def _dropout_args(x: torch.Tensor, p: float, *, seed: int, training: bool = True) -> dict[str, Any]:
    return {"in_features": x, "p": p, "training": training, "generator": torch.Generator().manual_seed(seed)}


@law
def dropout_values(ctx, ps: list, size: int = 4000) -> None:
    """Every output is either 0 or x / (1 - p) (p = 1 gives all zeros)."""
    x = noise(torch.empty(size), 3).abs() + 0.5
    for p, out in zip(ps, ctx.outputs([_dropout_args(x, p, seed=1) for p in ps])):
        kept = x / (1 - p) if p < 1 else torch.zeros_like(x)
        ok = torch.isclose(out, torch.zeros_like(out)) | torch.isclose(out, kept, rtol=1e-5, atol=1e-6)
        if not bool(ok.all()):
            i = int((~ok).nonzero()[0])
            raise CheckFailure("dropout.bad_value", p=p, i=i, got=float(out[i]), x=float(x[i]), kept=float(kept[i]))


@law
def dropout_rate(ctx, ps: list, size: int = 20000, sigmas: float = 6.0) -> None:
    """The fraction of zeros is p, within a binomial bound of `sigmas` standard deviations."""
    x = torch.ones(size)
    for p, out in zip(ps, ctx.outputs([_dropout_args(x, p, seed=2) for p in ps])):
        zeros = int((out == 0).sum())
        bound = sigmas * math.sqrt(size * p * (1 - p)) + 1
        if abs(zeros - size * p) > bound:
            raise CheckFailure("dropout.bad_rate", p=p, zeros=zeros, size=size, expected=size * p, bound=bound)


@law
def dropout_independent(ctx, p: float = 0.5, rows: int = 64, cols: int = 64) -> None:
    """Every element is dropped independently: no two rows (or columns) of a 2-D input share one mask.
    Two independent masks of 64 elements agree with probability 2^-64 at p = 0.5."""
    kept = ctx.call(_dropout_args(torch.ones(rows, cols), p, seed=5)) != 0
    for what, masks in (("rows", kept), ("columns", kept.T)):
        if torch.unique(masks, dim=0).shape[0] < masks.shape[0]:
            raise CheckFailure("dropout.shared_mask", p=p, rows=rows, cols=cols, what=Message(f"dropout.{what}"))


@law
def dropout_eval_identity(ctx, base_case: str) -> None:
    """With training=False the output equals the input."""
    args = base_args(ctx, base_case)
    out = ctx.call({**args, "training": False})
    if not torch.equal(out, args["in_features"]):
        raise CheckFailure("dropout.eval_changed")


@law
def dropout_generator(ctx, p: float = 0.5, size: int = 2000) -> None:
    """The same generator seed gives the same mask; different seeds give different masks."""
    x = torch.ones(size)
    first, again, other = ctx.outputs([_dropout_args(x, p, seed=s) for s in (21, 21, 22)])
    if not torch.equal(first, again):
        raise CheckFailure("dropout.generator_ignored")
    if torch.equal(first, other):
        raise CheckFailure("dropout.generator_same")


def example(g: torch.Generator, lead: tuple[int, ...], dtype: torch.dtype) -> Example:
    kwargs = {"in_features": randn(g, *lead, 5, 6, dtype=dtype), "p": 0.3,
              "generator": torch.Generator().manual_seed(0)}
    return Example(kwargs, ("in_features",), 6, random=True)
