"""What a framework adapter does. Every call of student code goes through one (attnlab.core.impl.call_checked),
in this process and in the grading runner alike:

    converted = adapter.to_framework(kwargs)          # torch tensors -> arrays; generator -> its RNG
    before = adapter.snapshot(converted)
    with adapter.guard(exercise, forbidden): raw = fn(**converted)
    output = adapter.to_torch(raw, function)          # arrays -> torch tensors (a wrong type is named)
    adapter.changed(converted, before), adapter.aliases(converted, raw)

`to_torch` copies, so nothing the submission returns can alias or change later. Frames between judge and
runner stay framework-free: the runner converts on its side of the boundary.
"""

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import numpy as np
import torch

from attnlab.core import memory
from attnlab.core.outcomes import NotApplicable
from attnlab.core.outputs import Output

# torch dtype -> the name of the matching NumPy dtype (bfloat16 through ml_dtypes where a framework uses it)
NUMPY_NAMES = {torch.float16: "float16", torch.float32: "float32", torch.float64: "float64",
               torch.bfloat16: "bfloat16", torch.int64: "int64", torch.int32: "int32", torch.bool: "bool"}


class Adapter:
    name = "?"  # the framework's name, as course.yaml and --framework spell it
    module = "?"  # what `import` loads
    array_type = "?"  # what a student must return, as students know it (numpy.ndarray, jax.Array, ...)
    generator_kind = "?"  # what dropout's `generator` is in this framework, as the handout says it
    prefixes: tuple[str, ...] = ()  # forbidden-call names this adapter enforces (by dotted prefix)
    imports: tuple[str, ...] = ()  # what student code may import for this framework (with the course's libraries)
    unsupported: frozenset = frozenset()  # torch dtypes the framework lacks: such cases are not applicable
    devices: tuple[str, ...] = ("cpu",)  # device types its arrays can live on (grade.py --device)
    # grade.py's default address-space cap per runner (--memory), MB, where Limits.memory_mb's is not enough for
    # importing the framework and torch and running one submission's exercises (docs: README "Frameworks")
    memory_mb: int | None = None
    # the per-exercise CPU limit as a multiple of torch's (attnlab.core.config.exercise_cpu_s): what the framework
    # spends per operation beyond the arithmetic, so correct code is not timed out for the framework's overhead
    cpu_factor: float = 1.0
    extra: str | None = None  # pyproject.toml's optional dependencies that install it (None: a core dependency)
    module_class = "nn.Module"  # what the notes call a layer with loaded weights, as the handout says it

    @property
    def subfolder(self) -> str:
        """Where its reference and stubs live below reference/ and student_template/ ("" for the default)."""
        return self.name

    def runner_env(self, compile_cache: str | None = None) -> dict[str, str]:
        """Environment a grading runner of this framework starts with, beyond the sandbox's clean one.
        compile_cache: the grading compilation cache as the runner sees it (read-only to students' runners),
        where the framework has one (compile_cache_key)."""
        return {}

    def compile_cache_key(self) -> str | None:
        """What a grading compilation cache of this framework is valid for (its version), or None: it compiles
        nothing a later runner could reuse (attnlab.grade.judge.compile_cache)."""
        return None

    def available(self) -> bool:
        try:
            __import__(self.module)
        except Exception:  # noqa: BLE001 -- not installed, or broken: either way not usable here
            return False
        return True

    def warm(self) -> None:
        """Import the framework (the forkserver does, before forking; no operation may run yet)."""
        __import__(self.module)

    def prepare(self) -> None:
        """Once per process, before the first call (after a fork): thread pools, modes."""

    def supports(self, dtype: torch.dtype) -> bool:
        return dtype not in self.unsupported

    def owns(self, name: str) -> bool:
        """Whether a forbidden-call name (a spec lists every framework's) is this framework's to enforce."""
        return name.startswith(self.prefixes)

    # -- conversion -------------------------------------------------------------------------------
    def to_framework(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        return {name: self.argument(name, value) for name, value in kwargs.items()}

    def argument(self, name: str, value: Any) -> Any:
        if isinstance(value, torch.Tensor):
            if not self.supports(value.dtype):
                raise NotApplicable("not_applicable_dtype", framework=self.name,
                                    dtype=str(value.dtype).removeprefix("torch."))
            return self.array(value)
        if isinstance(value, torch.Generator):
            return self.generator(value.initial_seed())
        if isinstance(value, torch.device):
            return self.device(value)
        return value

    def array(self, tensor: torch.Tensor) -> Any:
        raise NotImplementedError

    def generator(self, seed: int) -> Any:
        raise NotImplementedError

    def device(self, device: torch.device) -> Any:
        return None if device.type == "cpu" else str(device)

    def to_torch(self, value: Any, function: str) -> Output:
        raise NotImplementedError

    # -- what a call did to its inputs --------------------------------------------------------------
    def snapshot(self, converted: dict[str, Any]) -> dict[str, bytes]:
        return {name: self.bytes_of(v) for name, v in converted.items() if self.is_array(v)}

    def changed(self, converted: dict[str, Any], before: dict[str, bytes]) -> list[str]:
        return [name for name, old in before.items() if self.bytes_of(converted[name]) != old]

    def aliases(self, converted: dict[str, Any], raw: Any) -> list[str]:
        outputs = raw if isinstance(raw, (tuple, list)) else (raw,)
        return [name for name, v in converted.items() if self.is_array(v) and any(o is v for o in outputs)]

    def is_array(self, value: Any) -> bool:
        raise NotImplementedError

    def bytes_of(self, value: Any) -> bytes:
        return np.ascontiguousarray(self.numpy_of(value)).tobytes()

    def tensor_of(self, value: Any) -> torch.Tensor:
        """One of the framework's arrays as a torch tensor (a copy)."""
        return numpy_to_tensor(self.numpy_of(value))

    def numpy_of(self, value: Any) -> np.ndarray:
        raise NotImplementedError

    # -- a case's memory budget (`max_tensor_mb:`) ----------------------------------------------------
    def budget(self, exercise: str, limit_mb: float | None) -> AbstractContextManager:
        """Fail the call (MemoryLimit) if it makes an array over `limit_mb`. The default sees torch operators
        only; a framework whose allocations it cannot see is held to the budget in grading by the runner's
        lowered address-space limit alone (attnlab.grade.runner.runner.address_space_for)."""
        return memory.tensor_budget(exercise, limit_mb)

    def tile_budget(self, exercise: str, side: int | None) -> AbstractContextManager:
        """Fail the call if a Triton kernel holds a tile longer than `side` (`max_tile_side:`); only torch
        launches Triton kernels (for_torch.py)."""
        return nullcontext()

    # -- forbidden calls and gradients --------------------------------------------------------------
    def guard(self, exercise: str, names: tuple[str, ...], *, deep: bool = True) -> AbstractContextManager:
        raise NotImplementedError

    def vjp(self, fn: Callable, *, exercise: str, function: str, kwargs: dict[str, Any],
            forbidden_calls: tuple[str, ...], wrt: tuple[str, ...], cotangent: Output):
        raise NotApplicable("not_applicable_gradient", framework=self.name)


def numpy_dtype(dtype: torch.dtype) -> np.dtype:
    """The NumPy dtype of a torch dtype (bfloat16 from ml_dtypes, which jax ships)."""
    name = NUMPY_NAMES[dtype]
    if name == "bfloat16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


def tensor_to_numpy(tensor: torch.Tensor) -> np.ndarray:
    """A writable NumPy copy with the tensor's values, dtype (bfloat16 via ml_dtypes) and strides (a
    transposed or strided input stays so: layout cases test that code handles any strides)."""
    t = tensor.detach().cpu()
    copy = torch.empty_strided(t.shape, t.stride(), dtype=t.dtype).copy_(t)
    if t.dtype == torch.bfloat16:
        return copy.view(torch.int16).numpy().view(numpy_dtype(torch.bfloat16))
    return copy.numpy()


def numpy_to_tensor(array: np.ndarray) -> torch.Tensor:
    array = np.ascontiguousarray(array)
    if array.dtype.name == "bfloat16":
        return torch.from_numpy(array.view(np.int16).copy()).view(torch.bfloat16)
    return torch.from_numpy(array.copy())
