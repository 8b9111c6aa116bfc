"""sinusoidal_positional_encoding: the laws of (sin, cos) pairs turning with the position, and its picture.

No example(): the input is a tensor of integers without a feature dim and the output is float32 whatever
the inputs, so the generic batching and dtype checks of tests/test_reference_basics.py do not apply.
"""

from collections.abc import Callable

import numpy as np
import torch

from attnlab.core.compare import tolerance_for
from attnlab.core.laws import drawn, law
from attnlab.core.outcomes import CheckFailure
from attnlab.core.pictures import F64, Picture
from attnlab.core.spec import Text

MESSAGES = {
    "off_circle": {
        "en": "d_model={d_model}, base={base:g}, position {p}: columns ({col}, {col1}) are ({a:.4g}, {b:.4g}), "
              "which is not a point on the unit circle; a pair holds sin and cos of one angle, so a² + b² = 1",
        "zh": "d_model={d_model}，base={base:g}，位置 {p}：第 ({col}, {col1}) 列为 ({a:.4g}, {b:.4g})，不在单位圆上；"
              "每一对是同一角度的 sin 与 cos，所以 a² + b² = 1"},
    "out_of_range": {
        "en": "d_model={d_model}, base={base:g}, position {p}: column {col} is {a:.6g}; sines and cosines lie in "
              "[−1, 1]",
        "zh": "d_model={d_model}，base={base:g}，位置 {p}：第 {col} 列为 {a:.6g}；正弦与余弦都位于 [−1, 1] 内"},
    "zero_row": {
        "en": "d_model={d_model}: PE(0) must be (0, 1, 0, 1, …) — sin 0 in the even columns, cos 0 in the odd "
              "ones — but column {col} is {a:.4g}",
        "zh": "d_model={d_model}：PE(0) 必须是 (0, 1, 0, 1, …)——偶数列为 sin 0，奇数列为 cos 0——"
              "但第 {col} 列为 {a:.4g}"},
    "not_sine": {
        "en": "d_model={d_model}, base={base:g}: column {col} is {a:.4g} at position {p} and {b:.4g} at −{p}; an "
              "even column is a sine, so PE(−p) = −PE(p) there",
        "zh": "d_model={d_model}，base={base:g}：第 {col} 列在位置 {p} 处为 {a:.4g}，在 −{p} 处为 {b:.4g}；"
              "偶数列是正弦，所以该列应有 PE(−p) = −PE(p)"},
    "not_cosine": {
        "en": "d_model={d_model}, base={base:g}: column {col} is {a:.4g} at position {p} and {b:.4g} at −{p}; an "
              "odd column is a cosine, so PE(−p) = PE(p) there",
        "zh": "d_model={d_model}，base={base:g}：第 {col} 列在位置 {p} 处为 {a:.4g}，在 −{p} 处为 {b:.4g}；"
              "奇数列是余弦，所以该列应有 PE(−p) = PE(p)"},
    "not_relative": {
        "en": "d_model={d_model}, base={base:g}: the dot product of pair {pair} (columns {col}, {col1}) is {a:.4g} "
              "between positions {p} and {q} but {b:.4g} between {p2} and {q2}; it must depend only on the "
              "offset (it is cos((p − q)·ω_i))",
        "zh": "d_model={d_model}，base={base:g}：第 {pair} 对（第 {col}、{col1} 列）在位置 {p} 与 {q} 之间的点积为 "
              "{a:.4g}，在 {p2} 与 {q2} 之间却为 {b:.4g}；它只应依赖于位置差（等于 cos((p − q)·ω_i)）"},
}

MAX_POSITION = 4096  # |p| and |p + s| stay below 8192, where the spec's float32 tolerance is justified


def _call(positions: list[int], d_model: int, base: float) -> dict:
    return {"positions": torch.tensor(positions, dtype=torch.int64), "d_model": d_model, "base": base}


def _atol(ctx) -> float:
    return tolerance_for(ctx.exercise.tolerance, torch.float32).atol


def _circle_inputs() -> dict:
    from hypothesis import strategies as st

    return {"d_model": st.integers(1, 48), "base": st.sampled_from([10000.0, 500.0, 1e6]),
            "positions": st.lists(st.integers(-2 * MAX_POSITION, 2 * MAX_POSITION), min_size=1, max_size=8)}


@law(draws=_circle_inputs)
def pe_pairs_on_unit_circle(ctx, examples: int = 15) -> None:
    """Every value lies in [−1, 1] and every pair (2i, 2i+1) is (sin θ, cos θ) of one angle: a² + b² = 1.
    Rounding the angle moves the point along the circle, never off it, so the bound is tight (1e-4)."""
    draws = drawn("pe_pairs_on_unit_circle", examples)
    for example, out in zip(draws, ctx.outputs([_call(e["positions"], e["d_model"], e["base"]) for e in draws])):
        d_model, base, out = example["d_model"], example["base"], out.double()
        outside = ~(out.abs() <= 1.0 + 1e-6)  # NaN is outside too
        if outside.any():
            row, col = (int(i) for i in outside.nonzero()[0])
            raise CheckFailure("sinusoidal_positional_encoding.out_of_range", d_model=d_model, base=base,
                               p=example["positions"][row], col=col, a=float(out[row, col]))
        pairs = out[:, : d_model - d_model % 2].unflatten(-1, (-1, 2))  # (positions, pairs, 2)
        off = ~((pairs.square().sum(-1) - 1.0).abs() <= 1e-4)
        if off.any():
            row, pair = (int(i) for i in off.nonzero()[0])
            a, b = (float(v) for v in pairs[row, pair])
            raise CheckFailure("sinusoidal_positional_encoding.off_circle", d_model=d_model, base=base,
                               p=example["positions"][row], col=2 * pair, col1=2 * pair + 1, a=a, b=b)


def _symmetry_inputs() -> dict:
    from hypothesis import strategies as st

    return {"d_model": st.integers(1, 48), "base": st.sampled_from([10000.0, 500.0, 1e6]),
            "p": st.integers(1, 2 * MAX_POSITION)}


@law(draws=_symmetry_inputs)
def pe_sine_then_cosine(ctx, examples: int = 15) -> None:
    """Interleaving, read off the values: PE(0) = (0, 1, 0, 1, …); an even column is a sine, odd in p
    (PE(−p) = −PE(p)); an odd column is a cosine, even in p (PE(−p) = PE(p)). Each value is within the
    spec's atol of its exact value, so a sum or difference of two is within 2·atol."""
    draws = drawn("pe_sine_then_cosine", examples)
    atol = _atol(ctx)
    calls = [_call([e["p"], -e["p"], 0], e["d_model"], e["base"]) for e in draws]
    for example, out in zip(draws, ctx.outputs(calls)):
        d_model, base, p = example["d_model"], example["base"], example["p"]
        plus, minus, zero = out.double()
        for col in range(d_model):
            even = col % 2 == 0
            if abs(float(zero[col]) - (0.0 if even else 1.0)) > atol:
                raise CheckFailure("sinusoidal_positional_encoding.zero_row", d_model=d_model, col=col,
                                   a=float(zero[col]))
            a, b = float(plus[col]), float(minus[col])
            if not abs(a + b if even else a - b) <= 2 * atol:
                raise CheckFailure(f"sinusoidal_positional_encoding.{'not_sine' if even else 'not_cosine'}",
                                   d_model=d_model, base=base, col=col, p=p, a=a, b=b)


def _relative_inputs() -> dict:
    from hypothesis import strategies as st

    span = st.integers(-MAX_POSITION, MAX_POSITION)
    return {"half": st.integers(1, 24), "base": st.sampled_from([10000.0, 500.0, 1e6]), "p": span, "q": span,
            "s": span}


@law(draws=_relative_inputs)
def pe_relative_position(ctx, examples: int = 15) -> None:
    """Per pair i, PE(p)[2i:2i+2] · PE(q)[2i:2i+2] = cos((p − q)·ω_i): shifting both positions by s changes
    no pair's dot product. Each of the two dot products is within 2·atol of its exact value."""
    draws = drawn("pe_relative_position", examples)
    calls = []
    for e in draws:
        calls += [_call([e["p"], e["q"]], 2 * e["half"], e["base"]),
                  _call([e["p"] + e["s"], e["q"] + e["s"]], 2 * e["half"], e["base"])]
    outs = ctx.outputs(calls)
    for e in draws:
        before, after = (_pair_dots(next(outs)) for _ in range(2))
        worst = int((before - after).abs().nan_to_num(nan=float("inf")).argmax())
        if not abs(float(before[worst] - after[worst])) <= 4 * _atol(ctx):
            raise CheckFailure("sinusoidal_positional_encoding.not_relative", d_model=2 * e["half"], base=e["base"],
                               pair=worst, col=2 * worst, col1=2 * worst + 1, p=e["p"], q=e["q"],
                               a=float(before[worst]), p2=e["p"] + e["s"], q2=e["q"] + e["s"], b=float(after[worst]))


def _pair_dots(two_rows: torch.Tensor) -> torch.Tensor:
    """(2, d_model) -> (d_model/2,): the dot product of the rows' pairs (2i, 2i+1), pair by pair."""
    pairs = two_rows.double().unflatten(-1, (-1, 2))  # (2, pairs, 2)
    return (pairs[0] * pairs[1]).sum(-1)


PE_POSITIONS, PE_D_MODEL = 48, 32


def _picture(call: Callable) -> np.ndarray:
    encoding = call(positions=torch.arange(PE_POSITIONS), d_model=PE_D_MODEL, base=10000.0)
    return encoding.detach().to("cpu", F64).numpy()[None]  # (1, positions, d_model)


PICTURE = Picture(_picture, "scores",
                  Text(en="PE for positions 0–47, d_model = 32: fast sin/cos pairs on the left, slow ones on the "
                          "right",
                       zh="位置 0–47、d_model = 32 的位置编码：左侧是变化快的 sin/cos 对，右侧是变化慢的"),
                  axes=(Text(en="column (2i: sin, 2i+1: cos)", zh="列（2i：sin，2i+1：cos）"),
                        Text(en="position", zh="位置")))
