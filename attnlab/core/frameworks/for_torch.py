"""PyTorch: the judge's own framework, so nothing is converted: arguments are the case's tensors, the
output is checked as returned. The forbidden-call guard watches torch calls from Python and every ATen
operator (attnlab.core.forbidden); gradients come from autograd."""

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import torch

from attnlab.core import forbidden, inputs
from attnlab.core.calls import vjp_call
from attnlab.core.frameworks import kernels
from attnlab.core.frameworks.base import Adapter
from attnlab.core.outputs import as_output, parts


class TorchAdapter(Adapter):
    name = "torch"
    module = "torch"
    array_type = "torch.Tensor"
    generator_kind = "torch.Generator"
    prefixes = ("torch.", "aten.")
    imports = ("torch", "numpy")
    devices = ("cpu", "cuda", "mps", "xpu")
    subfolder = ""  # the course's default framework: reference/ and student_template/ themselves

    def prepare(self) -> None:
        kernels.use_interpreter_without_gpu()  # before the submission imports: @triton.jit reads it then

    def to_framework(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        return kwargs

    def to_torch(self, value: Any, function: str):
        return as_output(value, function)

    def snapshot(self, converted: dict[str, Any]) -> dict[str, torch.Tensor]:
        return inputs.snapshot(converted)

    def changed(self, converted: dict[str, Any], before) -> list[str]:
        return inputs.changed(converted, before)

    def aliases(self, converted: dict[str, Any], raw: Any) -> list[str]:
        output = as_output(raw, "?")
        return list(dict.fromkeys(name for part in parts(output) for name in inputs.aliased(converted, part)))

    def is_array(self, value: Any) -> bool:
        return isinstance(value, torch.Tensor)

    def tensor_of(self, value: Any) -> torch.Tensor:
        return value

    def guard(self, exercise: str, names: tuple[str, ...], *, deep: bool = True):
        calls = forbidden.guard(exercise, tuple(n for n in names if self.owns(n)), deep=deep)
        if kernels.KERNELS_ONLY not in names:
            return calls
        return _together(calls, kernels.kernels_only(exercise))  # a Triton exercise: its result from kernels only

    def tile_budget(self, exercise: str, side: int | None):
        return kernels.tile_budget(exercise, side)  # a Triton kernel's tiles, under the interpreter

    def vjp(self, fn, *, exercise, function, kwargs, forbidden_calls, wrt, cotangent):
        return vjp_call(fn, exercise=exercise, function=function, kwargs=kwargs,
                        forbidden_calls=tuple(n for n in forbidden_calls if self.owns(n)), wrt=wrt,
                        cotangent=cotangent, guards=self)


@contextmanager
def _together(outer: AbstractContextManager, inner: AbstractContextManager) -> Iterator[None]:
    with outer, inner:
        yield


ADAPTER = TorchAdapter()
