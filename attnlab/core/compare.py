"""Comparing an output with its float64 expected value, and saying exactly where and by how much it differs."""

import torch

from attnlab.core.i18n import Message
from attnlab.core.spec import Tolerance

FLOAT64_MAX = torch.finfo(torch.float64).max


def tolerance_for(tolerances: dict[str, Tolerance], dtype: torch.dtype) -> Tolerance:
    name = str(dtype).removeprefix("torch.")
    return tolerances.get(name) or tolerances["float32"]


def _index(flat_index: int, shape: torch.Size) -> tuple[int, ...]:
    """The multi-index of a C-order flat index (plain arithmetic: torch.unravel_index imports sympy)."""
    index = []
    for size in reversed(shape):
        flat_index, i = divmod(flat_index, size) if size else (flat_index, 0)
        index.append(i)
    return tuple(reversed(index))


def unreadable(got, expected: torch.Tensor) -> Message | None:
    """Why `got` cannot be compared with `expected` element by element (not a tensor of real numbers, or
    another shape: broadcasting would compare the wrong elements, or raise), or None."""
    if not isinstance(got, torch.Tensor) or got.is_complex() or got.layout != torch.strided or got.is_meta:
        kind = str(got.dtype).removeprefix("torch.") if isinstance(got, torch.Tensor) else type(got).__name__
        return Message("compare_dtype", {"got": kind})
    if got.shape != expected.shape:
        return Message("compare_shape", {"got": tuple(got.shape), "expected": tuple(expected.shape)})
    return None


def compare(got: torch.Tensor, expected: torch.Tensor, tol: Tolerance) -> Message | None:
    """None when every element satisfies |got - expected| <= atol + rtol * |expected| (NaN never does);
    else what differs, where and by how much, or why they cannot be compared (`unreadable`)."""
    problem = unreadable(got, expected)
    if problem is not None:
        return problem
    g = got.detach().to("cpu", torch.float64)
    e = expected.detach().to("cpu", torch.float64)
    if _within(g, e, tol):
        return None
    close = torch.isclose(g, e, rtol=tol.rtol, atol=tol.atol, equal_nan=True)
    if bool(close.all()):  # NaN or ±inf only where expected has the same
        return None
    bad_finite = ~torch.isfinite(g) & torch.isfinite(e)
    if bad_finite.any():
        first = int(bad_finite.flatten().nonzero()[0])
        return Message("nan", {"count": int(bad_finite.sum()), "index": _index(first, g.shape)})
    err = (g - e).abs().nan_to_num(nan=float("inf"))
    flat = int(err.flatten().argmax())
    idx = _index(flat, g.shape)
    return Message("mismatch", {"bad": int((~close).sum()), "total": close.numel(), "err": float(err.flatten()[flat]),
                                "index": idx, "got": float(g.flatten()[flat]), "expected": float(e.flatten()[flat]),
                                "atol": tol.atol, "rtol": tol.rtol, "dtype": str(got.dtype).removeprefix("torch.")})


def _allowed(e: torch.Tensor, tol: Tolerance) -> torch.Tensor:
    """atol + rtol·|e|, element by element, as a new tensor."""
    return e.abs().mul_(tol.rtol).add_(tol.atol)


def _within(g: torch.Tensor, e: torch.Tensor, tol: Tolerance) -> bool:
    """Every element finite and within atol + rtol·|e| (torch.isclose's test, in fewer operations): the common
    case. False also where something is NaN or infinite, which isclose then decides."""
    allowed = _allowed(e, tol).clamp_(max=FLOAT64_MAX)  # where e is ±inf no error is allowed
    return bool(((g - e).abs_() <= allowed).all())


def excess(got: torch.Tensor, expected: torch.Tensor, tol: Tolerance) -> float:
    """The worst element's error as a multiple of what the tolerance allows there, |g - e| / (atol + rtol·|e|):
    below 1 passes. NaN or ±inf where expected has the same count as exact; elsewhere, or a shape that differs,
    is infinitely far. The mutation report's margins (attnlab.instructor.mutants) are made of these."""
    if unreadable(got, expected) is not None:
        return float("inf")
    g, e = got.detach().to("cpu", torch.float64), expected.detach().to("cpu", torch.float64)
    if not g.numel():
        return 0.0
    ratio = (g - e).abs_().div_(_allowed(e, tol)).nan_to_num_(nan=float("inf"), posinf=float("inf"))
    worst = float(ratio.max())
    if worst != float("inf"):  # the common case: nothing NaN or infinite, and no 0/0 where nothing is allowed
        return worst
    same = (g == e) | (torch.isnan(g) & torch.isnan(e))  # exact, NaN where expected is NaN: no error at all
    return float(torch.where(same, torch.zeros_like(ratio), ratio).max())


def matches(got: torch.Tensor, expected: torch.Tensor, tol: Tolerance) -> bool:
    """Equal within tolerance, NaN where the other has NaN (bugs whose symptom is NaN can be named)."""
    if unreadable(got, expected) is not None:
        return False
    g, e = got.detach().to("cpu", torch.float64), expected.detach().to("cpu", torch.float64)
    return bool(torch.isclose(g, e, rtol=tol.rtol, atol=tol.atol, equal_nan=True).all())
