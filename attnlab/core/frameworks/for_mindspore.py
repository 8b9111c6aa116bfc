"""MindSpore (seed 001): arguments arrive as `mindspore.Tensor` copies of the case's tensors, with their dtype
and, for a transposed input, as a transposed view (MindSpore 2.10's PyNative mode has views); a `generator`
arrives as an int seed (see `generator`), because MindSpore 2.10's random ops that take a Generator have no
CPU kernel. Code runs in PyNative mode on the CPU, one thread, with launch_blocking, so an error surfaces at
the operation that caused it. MindSpore has no bfloat16 CPU kernels: bfloat16 cases are not applicable.
Gradients come from `mindspore.value_and_grad` with respect to the arguments the law names (the inputs;
a weight loaded into nn.Dense is a constant of the call). Forbidden shortcuts (mindspore.ops.softmax,
nn.Softmax, ...) are caught by swapping (swap.py).

MindSpore rounds a Python float to float32 before it meets a float64 tensor (`x / d ** 0.5`), so
idiomatic float64 code is exact to about 1e-7 only: specs give mindspore its own float64 tolerance where
that matters (`tolerance: mindspore: {float64: ...}`, docs/mindspore.md).
"""

import os
from typing import Any

import numpy as np
import torch

from attnlab.core.calls import describe_exception, invoke
from attnlab.core.frameworks.base import Adapter, tensor_to_numpy
from attnlab.core.frameworks.swap import SwapGuard
from attnlab.core.outcomes import Outcome, SubmissionError
from attnlab.core.outputs import convert_output, detach, parts

# The memory pool grows from 64 MB in 64 MB steps up to 1 GB: MindSpore's default reserves 2 GB at the first
# operation, and a runner (torch and MindSpore imported) then peaks at 2.6 GB of address space instead of 1.6
POOL = {"init_size": "0.0625GB", "increase_size": "0.0625GB", "max_size": "1GB"}
SEED_LIMIT = 2**31 - 1  # MindSpore seeds are int32-sized; seed 0 means "draw a random seed"


class MindsporeAdapter(Adapter):
    name = "mindspore"
    module = "mindspore"
    array_type = "mindspore.Tensor"
    generator_kind = "int"  # a seed: ops.UniformReal(seed=generator), or mindspore.set_seed(generator) + ops.rand
    prefixes = ("mindspore.",)
    imports = ("mindspore", "numpy")
    unsupported = frozenset({torch.bfloat16})  # no CPU kernel takes bfloat16 (exp, matmul, ...)
    devices = ("cpu",)
    # PyNative's cost per operation: the flash reference took 29-36 of torch's 60 CPU s in process, most of
    # it in the block-size law's 1 x 1 tiles; a correct but less frugal solution must not run out
    cpu_factor = 2.0
    extra = "mindspore"
    module_class = "nn.Cell"

    def __init__(self):
        self._guard = SwapGuard(("mindspore",))
        self._prepared_in: int | None = None  # the process prepare() ran in (a forked child runs it again)

    def available(self) -> bool:
        _quiet()
        return super().available()

    def warm(self) -> None:
        """Import only (an operation run before a fork deadlocks the child's first one), and the guard's index
        of MindSpore's modules, which every runner then inherits."""
        _quiet()
        __import__("mindspore")
        self._guard.prime()

    def prepare(self) -> None:
        """PyNative on the CPU, errors raised by the operation that failed, one thread, a small memory pool."""
        if self._prepared_in == os.getpid():
            return
        _quiet()
        import mindspore as ms

        ms.set_device("CPU")
        ms.set_context(mode=ms.PYNATIVE_MODE)
        ms.runtime.launch_blocking()
        ms.device_context.cpu.op_tuning.threads_num(1)
        ms.runtime.dispatch_threads_num(1)
        try:
            ms.runtime.set_memory(**POOL)
        except RuntimeError:  # this process ran an operation already: its pool stays as it is
            pass
        self._keep_device(ms)
        self._prepared_in = os.getpid()

    @staticmethod
    def _keep_device(ms) -> None:
        """Seed 001 opens with `mindspore.set_context(device_target="Ascend")` and `set_context(device_id=0)`,
        and ModelArts notebooks with `set_device("Ascend")`: on the grading CPU the first raised "Unsupported
        device target Ascend" at import, and every exercise of a correct submission failed. Once prepare has
        chosen, the device and the mode (PyNative) stay: set_context ignores device_target, device_id and mode
        and passes every other setting on, and set_device does nothing, in grading and in `attnlab check`
        alike (so a student on an Ascend machine sees what grading will do)."""
        original = getattr(ms.set_context, "attnlab_original", ms.set_context)

        def set_context(**kwargs):
            kept = {k: v for k, v in kwargs.items() if k not in ("device_target", "device_id", "mode")}
            return original(**kept) if kept else None

        def set_device(*args, **kwargs):
            return None

        set_context.attnlab_original = original
        for owner in (ms, ms.context):
            if hasattr(owner, "set_context"):
                owner.set_context = set_context
        if hasattr(ms, "set_device"):
            ms.set_device = set_device

    # -- conversion -------------------------------------------------------------------------------
    def array(self, tensor: torch.Tensor):
        import mindspore as ms

        if tensor.dim() >= 2 and not tensor.is_contiguous() and tensor.mT.is_contiguous():
            return ms.Tensor(tensor_to_numpy(tensor.mT)).swapaxes(-1, -2)  # a transposed view, as given
        return ms.Tensor(np.ascontiguousarray(tensor_to_numpy(tensor)))

    def generator(self, seed: int) -> int:
        """The seed itself where MindSpore takes it (1 <= seed < 2**31), else a stand-in in that range: the same
        seed always gives the same int, so a law can repeat a call."""
        return seed if 0 < seed < SEED_LIMIT else 1 + seed % (SEED_LIMIT - 1)

    def to_torch(self, value: Any, function: str):
        return convert_output(value, function, is_array=self.is_array, convert=self.tensor_of,
                              expected=self.array_type)

    def is_array(self, value: Any) -> bool:
        import mindspore as ms

        return isinstance(value, ms.Tensor)

    def numpy_of(self, value: Any) -> np.ndarray:
        return value.asnumpy()

    def aliases(self, converted: dict[str, Any], raw: Any) -> list[str]:
        """Inputs returned, or a view of one starting at its first element (`x.reshape(...)`), as torch's."""
        outputs = [o for o in (raw if isinstance(raw, (tuple, list)) else (raw,)) if self.is_array(o) and o.size]
        return [name for name, v in converted.items() if self.is_array(v) and v.size
                and any(o is v or o.data_ptr() == v.data_ptr() for o in outputs)]

    def guard(self, exercise: str, names: tuple[str, ...], *, deep: bool = True):
        return self._guard.guard(exercise, tuple(n for n in names if self.owns(n)))

    # -- gradients ----------------------------------------------------------------------------------
    def vjp(self, fn, *, exercise, function, kwargs, forbidden_calls, wrt, cotangent):
        """Output and gradients of <output, cotangent> with respect to the arguments named in `wrt`, through
        mindspore.value_and_grad (the torch adapter's contract: attnlab.core.calls.vjp_call)."""
        import mindspore as ms
        from mindspore.common.api import _pynative_executor

        self.prepare()
        converted = self.to_framework(kwargs)
        cotangents = [self.array(c) for c in parts(cotangent)]
        own = tuple(n for n in forbidden_calls if self.owns(n))

        def inner(*leaves):
            raw = invoke(fn, exercise=exercise, kwargs={**converted, **dict(zip(wrt, leaves))},
                         forbidden_calls=own, guards=self)
            outputs = raw if isinstance(raw, (tuple, list)) else (raw,)
            _check_outputs(self.to_torch(raw, function), cotangent, function)
            return sum((o * c.astype(o.dtype)).sum() for o, c in zip(outputs, cotangents)), raw

        try:
            (_, raw), grads = ms.value_and_grad(inner, grad_position=tuple(range(len(wrt))), has_aux=True)(
                *(converted[name] for name in wrt))
        except Exception as exc:
            _pynative_executor.clear_res()  # a failed forward pass leaves the grad executor's graph half built
            if isinstance(exc, Outcome):
                raise
            raise SubmissionError("backward_failed", exercise=exercise, problem=describe_exception(exc)) from exc
        grads = grads if isinstance(grads, tuple) else (grads,)
        return detach(self.to_torch(raw, function)), {name: self.tensor_of(g) for name, g in zip(wrt, grads)}


def _check_outputs(output, cotangent, function: str) -> None:
    got, expected = parts(output), parts(cotangent)
    if len(got) != len(expected) or any(o.shape != c.shape for o, c in zip(got, expected)):
        raise SubmissionError("vjp_shape", function=function, got=[tuple(o.shape) for o in got],
                              expected=[tuple(c.shape) for c in expected])


def _quiet() -> None:
    """MindSpore's C++ log prints warnings (deprecations, its NumPy check) to stderr; errors still show."""
    os.environ.setdefault("GLOG_v", "3")


ADAPTER = MindsporeAdapter()
