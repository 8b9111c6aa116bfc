"""attention_backward: its laws (the gradients agree with finite differences of attention; the softmax's
shift invariance makes the key gradients sum to 0; weights summing to 1 make the value gradients sum to
Σ dO), its picture (dS itself, read off dQ) and an example call.

The laws need no reference: the finite differences use attention computed here in float64, and the two
sums follow from what attention is, whatever the inputs.
"""

import math
from collections.abc import Callable

import numpy as np
import torch

from attnlab.core.examples import Example, randn
from attnlab.core.laws import drawn, law, noise
from attnlab.core.outcomes import CheckFailure
from attnlab.core.pictures import F64, SEQ, Picture, eye
from attnlab.core.pictures import randn as picture_randn
from attnlab.core.spec import Text

MESSAGES = {
    "directional": {
        "en": "{shape}, is_causal={is_causal}: ⟨d{name}, δ{name}⟩ = {got:.8g}, but moving {name} by ε·δ{name} "
              "changes ⟨dO, O⟩ at the rate {expected:.8g} (finite difference of attention in float64)",
        "zh": "{shape}，is_causal={is_causal}：⟨d{name}, δ{name}⟩ = {got:.8g}，而把 {name} 沿 ε·δ{name} 移动时 "
              "⟨dO, O⟩ 的变化率为 {expected:.8g}（float64 注意力的有限差分）"},
    "key_sum": {
        "en": "{shape}, is_causal={is_causal}: dK summed over the keys is {got:.6g} at {index}, not 0; adding the same "
              "vector to every key changes no softmax, so the key gradients must sum to 0 (is D = rowsum(dO ∘ O) "
              "subtracted in dS = P ∘ (dP − D)?)",
        "zh": "{shape}，is_causal={is_causal}：dK 沿键求和在 {index} 处为 {got:.6g}，而不是 0；给每个键加上同一个向量"
              "不会改变任何 softmax，所以键的梯度之和必须为 0（dS = P ∘ (dP − D) 中减去 D = rowsum(dO ∘ O) 了吗？）"},
    "value_sum": {
        "en": "{shape}, is_causal={is_causal}: dV summed over the keys is {got:.6g} at {index}, but dO summed over the "
              "queries is {expected:.6g}; adding a vector c to every value adds c to every output (the weights sum "
              "to 1), so the two sums must be equal (is dV = Pᵀ dO?)",
        "zh": "{shape}，is_causal={is_causal}：dV 沿键求和在 {index} 处为 {got:.6g}，"
              "而 dO 沿查询求和为 {expected:.6g}；给每个值加上向量 c 会给每个输出加上 c（权重之和为 1），"
              "所以两者必须相等（dV = Pᵀ dO 吗？）"},
}

NAMES = ("Q", "K", "V")


def _backward_inputs() -> dict:
    from hypothesis import strategies as st

    return {"batch": st.integers(1, 2), "queries": st.integers(1, 8), "extra_keys": st.integers(0, 6),
            "d_k": st.integers(1, 8), "d_v": st.integers(1, 6), "is_causal": st.booleans(),
            "seed": st.integers(0, 2**31)}


def _inputs(example: dict) -> dict:
    """Float64 Q, K, V, dO for a drawn example (float64, so the laws can be tight)."""
    b, q, k, seed = example["batch"], example["queries"], example["queries"] + example["extra_keys"], example["seed"]
    d_k, d_v = example["d_k"], example["d_v"]
    shapes = {"Q": (b, q, d_k), "K": (b, k, d_k), "V": (b, k, d_v), "dO": (b, q, d_v)}
    args = {name: noise(torch.empty(shape, dtype=F64), seed + i) for i, (name, shape) in enumerate(shapes.items())}
    return {**args, "is_causal": example["is_causal"]}


def attention(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, is_causal: bool) -> torch.Tensor:
    """softmax(Q Kᵀ / √d_k) V in float64, the causal mask aligned bottom-right."""
    s = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if is_causal:
        n_q, n_k = s.shape[-2:]
        s = s.masked_fill(~torch.ones(n_q, n_k, dtype=torch.bool).tril(diagonal=n_k - n_q), float("-inf"))
    return torch.softmax(s, dim=-1) @ V


def _where(call: dict) -> dict:
    shape = ", ".join(f"{name} {tuple(call[name].shape)}" for name in (*NAMES, "dO"))
    return {"shape": shape, "is_causal": call["is_causal"]}


@law(draws=_backward_inputs)
def backward_directional_derivative(ctx, examples: int = 10, eps: float = 1e-5) -> None:
    """For a random direction δX of each input X, ⟨dX, δX⟩ equals the central difference
    (⟨dO, O(X + ε δX)⟩ − ⟨dO, O(X − ε δX)⟩) / 2ε of attention computed in float64 (error ~ε² ≈ 1e-10)."""
    calls = [_inputs(e) for e in drawn("backward_directional_derivative", examples)]
    for call, grads in zip(calls, ctx.outputs(calls)):
        for i, (name, grad) in enumerate(zip(NAMES, grads)):
            direction = noise(call[name], 1000 + i)
            moved = [{**call, name: call[name] + sign * eps * direction} for sign in (1, -1)]
            plus, minus = (float((call["dO"] * attention(m["Q"], m["K"], m["V"], call["is_causal"])).sum())
                           for m in moved)
            expected = (plus - minus) / (2 * eps)
            got = float((grad.double() * direction).sum())
            if abs(got - expected) > 1e-6 * (1 + abs(expected)):
                raise CheckFailure("attention_backward.directional", **_where(call), name=name, got=got,
                                   expected=expected)


@law(draws=_backward_inputs)
def backward_key_gradients_sum_to_zero(ctx, examples: int = 10) -> None:
    """Σ_j dK[j] = 0: shifting every key by the same vector adds a constant to each row of scores."""
    calls = [_inputs(e) for e in drawn("backward_key_gradients_sum_to_zero", examples)]
    for call, (_, dK, _) in zip(calls, ctx.outputs(calls)):
        total = dK.double().sum(dim=-2)  # (..., d_k)
        bound = 1e-9 * (1 + dK.double().abs().sum(dim=-2))
        _raise_where_over("key_sum", call, total, torch.zeros_like(total), bound)


@law(draws=_backward_inputs)
def backward_value_gradients_sum(ctx, examples: int = 10) -> None:
    """Σ_j dV[j] = Σ_i dO[i]: adding c to every value adds c to every output, as each row of weights sums to 1."""
    calls = [_inputs(e) for e in drawn("backward_value_gradients_sum", examples)]
    for call, (_, _, dV) in zip(calls, ctx.outputs(calls)):
        total, expected = dV.double().sum(dim=-2), call["dO"].sum(dim=-2)  # (..., d_v)
        bound = 1e-9 * (1 + call["dO"].abs().sum(dim=-2))
        _raise_where_over("value_sum", call, total, expected, bound)


def _raise_where_over(key: str, call: dict, got: torch.Tensor, expected: torch.Tensor, bound: torch.Tensor) -> None:
    over = ~((got - expected).abs() <= bound)  # NaN counts as over
    if bool(over.any()):
        index = tuple(int(i) for i in over.nonzero()[0])
        raise CheckFailure(f"attention_backward.{key}", **_where(call), index=index, got=float(got[index]),
                           expected=float(expected[index]))


def _picture(call: Callable) -> np.ndarray:
    """K = √d_k · identity (d_k = SEQ) makes dQ = dS K / √d_k = dS, the gradient of the scores."""
    dQ, _, _ = call(Q=picture_randn(21, SEQ, SEQ), K=eye(SEQ) * math.sqrt(SEQ), V=picture_randn(22, SEQ, 4),
                    dO=picture_randn(23, SEQ, 4), is_causal=True)
    return dQ.detach().to("cpu", F64).numpy()[None]


PICTURE = Picture(_picture, "scores", Text(
    en="K = √d_k·identity, so dQ shows dS = P ∘ (dP − D): 0 above the diagonal (is_causal), each row sums to 0",
    zh="K = √d_k·单位矩阵，于是 dQ 即 dS = P ∘ (dP − D)：对角线以上为 0（is_causal），每一行之和为 0"))


def example(g: torch.Generator, lead: tuple[int, ...], dtype: torch.dtype) -> Example:
    kwargs = {"Q": randn(g, *lead, 5, 3, dtype=dtype), "K": randn(g, *lead, 7, 3, dtype=dtype),
              "V": randn(g, *lead, 7, 4, dtype=dtype), "dO": randn(g, *lead, 5, 4, dtype=dtype), "is_causal": True}
    return Example(kwargs, ("Q", "K", "V", "dO"), 3)
