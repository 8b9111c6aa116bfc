"""The device under test (`--device cuda`): where a submission's calls run. Nothing needs a GPU.

Inputs are drawn on the CPU from their seeds (the same numbers everywhere) and moved; every call, a case's
or a law's, runs with its tensors on the device; the output must come back on the device (the inputs'),
and is then compared on the CPU in float64 against the reference's expected value. A generator becomes a
generator of the device seeded alike: random draws differ between devices, so a case that draws random
numbers has its expected value computed by the reference on the device too. TF32 is turned off, so float32
on a GPU is float32. Where the device is absent, each exercise is reported "not run on <device>" (Status
NOT_RUN), never skipped silently or passed.
"""

from typing import Any

import torch


def available(device: str) -> bool:
    kind = torch.device(device).type
    if kind == "cpu":
        return True
    if kind == "cuda":
        return torch.cuda.is_available() and (torch.device(device).index or 0) < torch.cuda.device_count()
    module = getattr(torch, kind, None)  # e.g. torch.mps, torch.xpu
    return bool(module is not None and getattr(module, "is_available", lambda: False)())


def exact_float32() -> None:
    """float32 matmuls and convolutions in float32 (not TF32) on GPUs that would use TF32."""
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False


def generator_on(device: str, seed: int) -> torch.Generator:
    return torch.Generator(device=torch.device(device)).manual_seed(seed)


def to_device(args: dict[str, Any], device: str) -> dict[str, Any]:
    """The call's arguments on `device` (the same object for the CPU): tensors moved with their strides,
    generators re-made there from their seed, a device argument set to it."""
    if torch.device(device).type == "cpu":
        return args
    moved = {}
    for name, value in args.items():
        if isinstance(value, torch.Tensor):
            moved[name] = value.to(device)
        elif isinstance(value, torch.Generator):
            moved[name] = generator_on(device, value.initial_seed())
        elif isinstance(value, torch.device):
            moved[name] = torch.device(device)
        else:
            moved[name] = value
    return moved


def draws_random(args: dict[str, Any]) -> bool:
    return any(isinstance(v, torch.Generator) for v in args.values())
