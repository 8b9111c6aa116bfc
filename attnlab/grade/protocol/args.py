"""A call's keyword arguments on the channel, both ways, and in-place changes on their way back.

Tensors travel by value (contiguous) with the name of the attnlab.core.inputs layout that recreates their
strides in the runner, and their device; a CPU generator travels as its full state (a byte tensor: a
generator that has already drawn numbers goes on from where it was, as it would in this process), another
device's as its seed (attnlab.core.devices), a device as its name, scalars/None/str as JSON. The runner
rebuilds the arguments with `decode_args`.
"""

from typing import Any

import torch

from attnlab.core.devices import generator_on
from attnlab.core.inputs import apply_layout
from attnlab.core.outcomes import SubmissionError


def layout_of(t: torch.Tensor) -> str:
    """Which attnlab.core.inputs layout reproduces `t`'s memory layout (values are always sent contiguous)."""
    if t.is_contiguous():
        return "contiguous"
    return "transposed" if t.dim() >= 2 and t.mT.is_contiguous() else "strided"


def encode_args(kwargs: dict[str, Any], *, prefix: str = "") -> tuple[dict, dict[str, torch.Tensor]]:
    """Argument descriptions for the request, and the tensors to put in its payload (keyed by `prefix`
    + "arg:" + name: a request carries several calls)."""
    args: dict[str, dict] = {}
    tensors: dict[str, torch.Tensor] = {}
    for name, value in kwargs.items():
        key = f"{prefix}arg:{name}"
        if isinstance(value, torch.Tensor):
            tensors[key] = value.detach().contiguous()
            args[name] = {"kind": "tensor", "key": key, "layout": layout_of(value), "device": str(value.device)}
        elif isinstance(value, torch.Generator):
            if value.device.type == "cpu":
                tensors[key] = value.get_state()
            args[name] = {"kind": "generator", "key": key, "seed": value.initial_seed(), "device": str(value.device)}
        elif isinstance(value, torch.device):
            args[name] = {"kind": "device", "device": str(value)}
        elif value is None or isinstance(value, (bool, int, float, str)):
            args[name] = {"kind": "value", "value": value}
        else:
            raise TypeError(f"argument {name}: a {type(value).__name__} cannot be sent to the runner")
    return args, tensors


def decode_args(args: dict, tensors: dict[str, torch.Tensor]) -> dict[str, Any]:
    """The call's keyword arguments from the request's argument descriptions (in the runner)."""
    kwargs: dict[str, Any] = {}
    for name, arg in args.items():
        kind = arg["kind"]
        device = str(arg.get("device", "cpu"))
        if kind == "tensor":
            layout = arg.get("layout", "contiguous")
            value = tensors[arg["key"]].to(device)
            kwargs[name] = value if layout == "contiguous" else apply_layout(value, layout)
        elif kind == "value":
            kwargs[name] = arg["value"]
        elif kind == "generator" and torch.device(device).type == "cpu":
            kwargs[name] = torch.Generator()
            kwargs[name].set_state(tensors[arg["key"]])
        elif kind == "generator":
            kwargs[name] = generator_on(device, int(arg["seed"]))
        elif kind == "device":
            kwargs[name] = torch.device(device)
        else:
            raise ValueError(f"argument {name!r}: unknown kind {kind!r}")
    return kwargs


def output_tensors(output, prefix: str = "output") -> tuple[dict[str, torch.Tensor], int | None]:
    """A call's output as payload tensors: `prefix` for one tensor, `prefix:<i>` for each of several
    (and their count, None for one tensor)."""
    if isinstance(output, torch.Tensor):
        return {prefix: output}, None
    return {f"{prefix}:{i}": t for i, t in enumerate(output)}, len(output)


def read_output(tensors: dict[str, torch.Tensor], count: Any, prefix: str = "output"):
    """The output output_tensors() sent (a tensor, or a tuple of `count`), or None if it is not all there."""
    if count is None:
        return tensors.get(prefix)
    if type(count) is not int or not 0 < count <= 8:
        return None
    found = [tensors.get(f"{prefix}:{i}") for i in range(count)]
    return None if any(t is None for t in found) else tuple(found)


def mirror_inplace(target: torch.Tensor, changed: torch.Tensor | None, name: str) -> None:
    """Apply the runner's in-place change to the caller's tensor (as if the call had run here)."""
    if changed is None or changed.shape != target.shape or changed.dtype != target.dtype:
        raise SubmissionError("grade.inplace_reshaped", name=name)
    with torch.no_grad():
        target.copy_(changed)
