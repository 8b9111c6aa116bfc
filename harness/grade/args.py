"""A call's keyword arguments on their way to the runner, and in-place changes on their way back.

Tensors travel by value (contiguous) with the name of the harness.inputs layout that recreates their
strides in the runner; generators travel as their seed, devices as "cpu", scalars/None/str as JSON.
"""

from typing import Any

import torch

from harness.outcomes import SubmissionError


def layout_of(t: torch.Tensor) -> str:
    """Which harness.inputs layout reproduces `t`'s memory layout (values are always sent contiguous)."""
    if t.is_contiguous():
        return "contiguous"
    return "transposed" if t.dim() >= 2 and t.mT.is_contiguous() else "strided"


def encode_args(kwargs: dict[str, Any], *, prefix: str = "") -> tuple[dict, dict[str, torch.Tensor]]:
    """Argument descriptions for the request, and the tensors to put in its payload (keyed by `prefix`
    + "arg:" + name: a request carries several calls)."""
    args: dict[str, dict] = {}
    tensors: dict[str, torch.Tensor] = {}
    for name, value in kwargs.items():
        if isinstance(value, torch.Tensor):
            key = f"{prefix}arg:{name}"
            tensors[key] = value.detach().contiguous()
            args[name] = {"kind": "tensor", "key": key, "layout": layout_of(value)}
        elif isinstance(value, torch.Generator):
            args[name] = {"kind": "generator", "seed": value.initial_seed()}
        elif isinstance(value, torch.device) or (name == "device" and isinstance(value, str)):
            args[name] = {"kind": "device"}
        elif value is None or isinstance(value, (bool, int, float, str)):
            args[name] = {"kind": "value", "value": value}
        else:
            raise TypeError(f"argument {name}: a {type(value).__name__} cannot be sent to the runner")
    return args, tensors


def mirror_inplace(target: torch.Tensor, changed: torch.Tensor | None, name: str) -> None:
    """Apply the runner's in-place change to the caller's tensor (as if the call had run here)."""
    if changed is None or changed.shape != target.shape or changed.dtype != target.dtype:
        raise SubmissionError(f"your function changed the shape or dtype of its input {name} in place")
    with torch.no_grad():
        target.copy_(changed)
