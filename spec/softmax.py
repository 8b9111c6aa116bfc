"""softmax: the laws of a softmax, and an example call for the reference's own tests."""

import torch

from attnlab.core.compare import tolerance_for
from attnlab.core.examples import Example, randn
from attnlab.core.i18n import Message
from attnlab.core.laws import base_args, drawn, expect_close, law, noise
from attnlab.core.outcomes import CheckFailure

MESSAGES = {
    "not_in_unit_interval": {
        "en": "shape {shape}, dim={dim}, scale {scale}: outputs must be finite and in [0, 1]",
        "zh": "形状 {shape}，dim={dim}，尺度 {scale}：输出必须是有限值且位于 [0, 1]"},
    "sums_not_one": {
        "en": "shape {shape}, dim={dim}: sums along dim range over [{low:.6g}, {high:.6g}], expected 1",
        "zh": "形状 {shape}，dim={dim}：沿 dim 的和介于 [{low:.6g}, {high:.6g}]，应为 1"},
    "shift_changed": {
        "en": "adding per-slice constants up to ±{shift:g} along dim={dim} changed the output",
        "zh": "沿 dim={dim} 给每个切片加上至多 ±{shift:g} 的常数后，输出改变了"},
}


def _softmax_inputs() -> dict:
    from hypothesis import strategies as st

    shape_and_dim = st.lists(st.integers(1, 6), min_size=1, max_size=4).flatmap(
        lambda shape: st.tuples(st.just(shape), st.integers(-len(shape), len(shape) - 1)))
    return {"shape_dim": shape_and_dim, "scale": st.sampled_from([1.0, 30.0, 300.0]),
            "seed": st.integers(0, 2**31)}


@law(draws=_softmax_inputs)
def softmax_normalised(ctx, examples: int = 20) -> None:
    """Outputs lie in [0, 1] and sum to 1 along `dim`, for any shape, dim and input scale."""
    draws = drawn("softmax_normalised", examples)
    calls = [{"in_features": noise(torch.empty(e["shape_dim"][0]), e["seed"]).float() * e["scale"],
              "dim": e["shape_dim"][1]} for e in draws]
    for example, out in zip(draws, ctx.outputs(calls)):
        (shape, dim), scale = example["shape_dim"], example["scale"]
        sums = out.double().sum(dim)
        tol = tolerance_for(ctx.exercise.tolerance, out.dtype)
        if not torch.isfinite(out).all() or (out < 0).any() or (out > 1 + tol.rtol).any():
            raise CheckFailure("softmax.not_in_unit_interval", shape=shape, dim=dim, scale=scale)
        # a sum of n outputs each within the spec's tolerance: the logsumexp route is off by ~3e-5 at |x|~1000
        if not torch.allclose(sums, torch.ones_like(sums), atol=tol.atol * shape[dim], rtol=tol.rtol):
            raise CheckFailure("softmax.sums_not_one", shape=shape, dim=dim, low=float(sums.min()),
                               high=float(sums.max()))


@law
def softmax_shift_invariance(ctx, base_case: str, shift: float = 500.0) -> None:
    """Adding any constant to a slice along `dim` (different per slice) leaves the softmax unchanged."""
    args = base_args(ctx, base_case)
    x, dim = args["in_features"], args["dim"]
    shape = list(x.shape)
    shape[dim] = 1
    c = noise(torch.empty(shape), 7).to(x.dtype) * shift
    shifted, plain = ctx.outputs([{**args, "in_features": x + c}, args])
    expect_close(ctx, shifted, plain, Message("softmax.shift_changed", {"shift": shift, "dim": dim}))


def example(g: torch.Generator, lead: tuple[int, ...], dtype: torch.dtype) -> Example:
    return Example({"in_features": randn(g, *lead, 5, 6, dtype=dtype), "dim": -1}, ("in_features",), 6)
