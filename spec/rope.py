"""rope: the laws of a rotation by position, its picture (scores that depend only on m − n), an example."""

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from attnlab.core.examples import Example, randn
from attnlab.core.laws import drawn, law, noise
from attnlab.core.outcomes import CheckFailure
from attnlab.core.pictures import F64, Picture
from attnlab.core.pictures import randn as picture_randn
from attnlab.core.spec import Text

MESSAGES = {
    "norms_changed": {
        "en": "d_k={d_k}, θ={theta:g}, positions {positions}: pair norms changed (a rotation must preserve them; "
              "are the pairs interleaved (2i, 2i+1)?)",
        "zh": "d_k={d_k}，θ={theta:g}，位置 {positions}：成对元素的模长改变了（旋转必须保持模长；"
              "成对的是否为交错的 (2i, 2i+1)？）"},
    "not_relative": {
        "en": "d_k={d_k}, θ={theta:g}: q·k at positions ({m}, {n}) is {a:.6g} but at ({m2}, {n2}) it is {b:.6g}; "
              "it must depend only on the offset",
        "zh": "d_k={d_k}，θ={theta:g}：位置 ({m}, {n}) 处的 q·k 为 {a:.6g}，而在 ({m2}, {n2}) 处为 {b:.6g}；"
              "它只应依赖于位置差"},
}


def _rope_args(x: torch.Tensor, positions: torch.Tensor, theta: float, max_seq_len: int) -> dict[str, Any]:
    return {"d_k": x.shape[-1], "theta": theta, "max_seq_len": max_seq_len, "in_query_or_key": x,
            "token_positions": positions}


def _rope_norm_inputs() -> dict:
    from hypothesis import strategies as st

    return {"half": st.integers(1, 12), "seq": st.integers(1, 9),
            "theta": st.sampled_from([10000.0, 500.0, 1e6]), "seed": st.integers(0, 2**31)}


@law(draws=_rope_norm_inputs)
def rope_preserves_norm(ctx, examples: int = 15, max_position: int = 4096) -> None:
    """Each rotated pair (x[2i], x[2i+1]) keeps its length, at any position and θ (float32 inputs)."""
    calls = []
    for example in drawn("rope_preserves_norm", examples):
        half, seq, theta, seed = example["half"], example["seq"], example["theta"], example["seed"]
        x = noise(torch.empty(seq, 2 * half), seed)
        pos = torch.randint(0, max_position, (seq,), generator=torch.Generator().manual_seed(seed))
        calls.append(_rope_args(x, pos, theta, max_position))
    for call, out in zip(calls, ctx.outputs(calls)):
        x, pos, theta = call["in_query_or_key"], call["token_positions"], call["theta"]
        if not torch.allclose(_pair_norms(out), _pair_norms(x), atol=1e-5, rtol=1e-5):
            raise CheckFailure("rope.norms_changed", d_k=x.shape[-1], theta=theta, positions=pos.tolist())


def _pair_norms(v: torch.Tensor) -> torch.Tensor:
    return v.double().unflatten(-1, (-1, 2)).norm(dim=-1)


def _rope_offset_inputs() -> dict:
    from hypothesis import strategies as st

    return {"half": st.integers(1, 12), "m": st.integers(0, 2000), "n": st.integers(0, 2000),
            "s": st.integers(1, 2000), "theta": st.sampled_from([10000.0, 500.0]), "seed": st.integers(0, 2**31)}


@law(draws=_rope_offset_inputs)
def rope_relative_position(ctx, examples: int = 15) -> None:
    """<RoPE(q, m), RoPE(k, n)> depends only on m - n: shifting both positions by s changes nothing.
    Positions stay below 4096; float32 angles there allow an error of ~2e-3·|q||k|."""
    draws = drawn("rope_relative_position", examples)
    calls = []
    for example in draws:
        m, n, s = example["m"], example["n"], example["s"]
        qk = noise(torch.empty(2, 2 * example["half"]), example["seed"])
        calls += [_rope_args(qk, torch.tensor(positions), example["theta"], 4096)
                  for positions in ([m, n], [m + s, n + s])]
    outs = ctx.outputs(calls)
    for example, call in zip(draws, calls[::2]):
        half, m, n, s, theta = (example[k] for k in ("half", "m", "n", "s", "theta"))
        qk = call["in_query_or_key"]
        scale = float(qk[0].norm() * qk[1].norm())
        a, b = _score(next(outs)), _score(next(outs))
        if abs(a - b) > 2e-3 * scale + 1e-6:
            raise CheckFailure("rope.not_relative", d_k=2 * half, theta=theta, m=m, n=n, a=a, m2=m + s, n2=n + s, b=b)


def _score(rotated_qk: torch.Tensor) -> float:
    """<RoPE(q, m), RoPE(k, n)> from RoPE applied to qk = (q, k) at positions (m, n)."""
    out = rotated_qk.double()
    return float(out[0] @ out[1])


ROPE_LEN, D_K = 16, 16


def _picture(call: Callable) -> np.ndarray:
    positions = torch.arange(ROPE_LEN)
    q, k = (picture_randn(seed, D_K, scale=1.0).expand(ROPE_LEN, D_K).clone() for seed in (7, 8))
    rotated = [call(d_k=D_K, theta=10000.0, max_seq_len=ROPE_LEN, in_query_or_key=x,
                    token_positions=positions) for x in (q, k)]
    scores = rotated[0].to(F64) @ rotated[1].to(F64).T  # (m, n): <RoPE(q, m), RoPE(k, n)>
    return scores.detach().cpu().numpy()[None]


PICTURE = Picture(_picture, "scores", Text(en="<RoPE(q, m), RoPE(k, n)> for one q and k: constant along diagonals",
                                           zh="固定 q、k 时的 <RoPE(q, m), RoPE(k, n)>：沿对角线不变"))


def example(g: torch.Generator, lead: tuple[int, ...], dtype: torch.dtype) -> Example:
    kwargs = {"d_k": 8, "theta": 10000.0, "max_seq_len": 16, "in_query_or_key": randn(g, *lead, 5, 8, dtype=dtype),
              "token_positions": torch.tensor([3, 0, 7, 7, 15])}
    return Example(kwargs, ("in_query_or_key",), 8)
