"""Triton exercises: the result must come from @triton.jit kernels, and a kernel may touch only its tensors.

A spec turns this on with the forbidden entry `triton.kernels_only` (KERNELS_ONLY): around every call of such
an exercise the torch adapter (for_torch.py) stacks `kernels_only` on its forbidden-call guard. It
- lets the launcher, outside kernels, only allocate, view, reshape, convert and copy tensors (LAUNCHER_OPS,
  seen at the ATen level: a launcher computing with torch gets no points, and is told which operator it used);
- counts kernel launches (compiled: JITFunction.run; interpreted: InterpretedFunction.run) and fails a call
  that returns without one;
- under Triton's interpreter (TRITON_INTERPRET=1, set by TorchAdapter.prepare where there is no GPU), checks
  every address a kernel loads or stores against the tensors it was given, before any memory is touched: an
  unmasked tile reading past a tensor is reported as an out-of-bounds access, not a segfault or a silently
  corrupted heap; and a bfloat16 tensor reaching a kernel makes the case not applicable (the interpreter
  computes bfloat16 on its bit patterns; such cases count where the kernel is compiled, --device cuda);
  and an @triton.autotune kernel runs its first config, untimed (timing needs a GPU).
Violations are recorded before raising, so a launcher that catches the exception is still reported.

A case's `max_tile_side:` (tile_budget) holds the kernel's tiles to a memory budget: FlashAttention keeps no
(queries × keys) tensor, but inside a kernel one tile can cover every key (BLOCK_K = next_power_of_2(keys)),
which torch's tensor budget cannot see. Under the interpreter every tile the kernel makes with tl.arange,
loads (tl.load, block pointers included) or multiplies (tl.dot) is measured: one longer than the budget along
any axis fails the call, naming its shape. Compiled kernels (CUDA) are not measured.
"""

import os
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field

import numpy as np
import torch
from torch.utils._python_dispatch import TorchDispatchMode

# the spec's forbidden entry that asks for this guard (named beside the frameworks: it decides where one applies)
from attnlab.core.frameworks.names import KERNELS_ONLY as KERNELS_ONLY
from attnlab.core.outcomes import KernelRuleBroken, MemoryLimit, NotApplicable, Outcome, SubmissionError

# ATen operators a launcher may run outside kernels, and Triton's interpreter runs around a launch (copying
# tensors to host storage and back): allocation, views, layout and dtype copies; nothing that computes values
LAUNCHER_OPS = frozenset({
    "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "zeros", "zeros_like", "new_zeros",
    "zero_", "fill_", "full", "full_like", "new_full", "view", "_unsafe_view", "reshape", "_reshape_alias",
    "as_strided", "expand", "permute", "transpose", "t", "unsqueeze", "squeeze", "select", "slice", "split",
    "split_with_sizes", "unbind", "narrow", "contiguous", "clone", "copy_", "_to_copy", "to", "detach", "alias",
    "lift_fresh", "set_", "resize_", "cat", "stack", "unflatten", "flatten", "movedim", "view_as_real",
    "_copy_from", "_copy_from_and_resize", "record_stream",
})


def interpreting() -> bool:
    return os.environ.get("TRITON_INTERPRET", "0") == "1"


def use_interpreter_without_gpu() -> None:
    """Run Triton kernels in its interpreter where no CUDA device is visible; an explicit TRITON_INTERPRET is
    kept. Before triton is first imported: it decorates its own library kernels then, and @triton.jit reads
    the variable when it decorates."""
    if "TRITON_INTERPRET" not in os.environ and not torch.cuda.is_available():
        os.environ["TRITON_INTERPRET"] = "1"


@dataclass
class _Watch:
    exercise: str
    launches: int = 0
    broken: list[Outcome] = field(default_factory=list)  # the first is raised after the call
    ranges: list[tuple[int, int]] = field(default_factory=list)  # host storages of the current launch

    def fail(self, outcome: Outcome) -> Outcome:
        self.broken.append(outcome)
        return outcome


class _LauncherGuard(TorchDispatchMode):
    def __init__(self, watch: _Watch):
        super().__init__()
        self.watch = watch

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        return False  # as in attnlab.core.forbidden: never compiled, and importing dynamo is slow

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = func.overloadpacket.__name__
        if name not in LAUNCHER_OPS:
            raise self.watch.fail(KernelRuleBroken("kernel_torch_outside", exercise=self.watch.exercise,
                                                   op=f"aten.{name}"))
        return func(*args, **(kwargs or {}))


@contextmanager
def kernels_only(exercise: str) -> Iterator[None]:
    """Raise KernelRuleBroken after the block if it computed with torch or launched no Triton kernel; an
    out-of-bounds access or a bfloat16 tensor under the interpreter ends it at once (see the module doc)."""
    watch = _Watch(exercise)
    completed = False
    try:
        with ExitStack() as patches:
            for owner, name, wrapper in _patches(watch):
                original = getattr(owner, name)
                setattr(owner, name, wrapper(original))
                patches.callback(setattr, owner, name, original)
            with _LauncherGuard(watch):
                yield
            completed = True
    finally:
        if watch.broken:
            raise watch.broken[0]
    if completed and watch.launches == 0:
        raise KernelRuleBroken("kernel_not_launched", exercise=exercise)


def _patches(watch: _Watch) -> list:
    """(owner, attribute, wrapper) for Triton's launch points and, for the interpreter, its memory access;
    none when Triton is not installed (then no kernel can be launched, which the call is told)."""
    try:
        from triton.runtime import interpreter, jit
    except ImportError:
        return []

    def counted(run):
        def run_counted(self, *args, grid, warmup, **kwargs):
            if not warmup:
                watch.launches += 1
                if isinstance(self, interpreter.InterpretedFunction):
                    _refuse_bfloat16(watch, args, kwargs)
            return run(self, *args, grid=grid, warmup=warmup, **kwargs)
        return run_counted

    def recording(init_args):
        def init_args_recorded(self, args_dev, kwargs):
            args_hst, kwargs_hst = init_args(self, args_dev, kwargs)
            storages = [t.untyped_storage() for t in (*args_hst, *kwargs_hst.values()) if isinstance(t, torch.Tensor)]
            watch.ranges = [(s.data_ptr(), s.data_ptr() + s.nbytes()) for s in storages]
            return args_hst, kwargs_hst
        return init_args_recorded

    def bounded(access, what):
        def access_bounded(self, ptrs, *rest):
            mask = rest[1] if what == "store" else rest[0]
            _check_addresses(watch, ptrs, mask, what)
            return access(self, ptrs, *rest)
        return access_bounded

    builder = interpreter.InterpreterBuilder
    patches = [(jit.JITFunction, "run", counted), (interpreter.InterpretedFunction, "run", counted),
               (interpreter.GridExecutor, "_init_args_hst", recording),
               (builder, "create_masked_load", lambda f: bounded(f, "load")),
               (builder, "create_masked_store", lambda f: bounded(f, "store"))]
    autotuner = _autotuner()
    if autotuner is not None and interpreting():
        patches.append((autotuner, "_bench", lambda _: _untimed))
    return patches


def _autotuner():
    try:
        from triton.runtime.autotuner import Autotuner
    except ImportError:
        return None
    return Autotuner if hasattr(Autotuner, "_bench") else None


def _untimed(self, *args, config, **kwargs) -> list[float]:
    """@triton.autotune times each config on the GPU (do_bench: "0 active drivers" under the interpreter, and
    the autotuned kernel, correct as it is, failed every check). Interpreted, every config takes the same
    time, so the autotuner runs its first one: the kernel is graded as it is written, the same each run."""
    return [0.0, 0.0, 0.0]


def _refuse_bfloat16(watch: _Watch, args: tuple, kwargs: dict) -> None:
    if any(isinstance(a, torch.Tensor) and a.dtype == torch.bfloat16 for a in (*args, *kwargs.values())):
        raise watch.fail(NotApplicable("kernel_bfloat16_interpreted"))


def _check_addresses(watch: _Watch, ptrs, mask, what: str) -> None:
    """Every address the access really touches (mask true) lies inside one of the launch's tensors."""
    addresses = np.asarray(ptrs.data, dtype=np.uint64)
    touched = addresses[np.broadcast_to(np.asarray(mask.data, dtype=bool), addresses.shape)]
    if touched.size == 0:
        return
    width = np.uint64(max(1, ptrs.get_element_ty().primitive_bitwidth // 8))
    inside = np.zeros(touched.shape, dtype=bool)
    for start, end in watch.ranges:
        inside |= (touched >= np.uint64(start)) & (touched + width <= np.uint64(end))
    if not inside.all():
        outside = int((~inside).sum())
        raise watch.fail(SubmissionError("kernel_out_of_bounds", exercise=watch.exercise,
                                         detail=f"a tl.{what} of {touched.size} elements reaches {outside} outside "
                                                "every tensor the kernel was given"))


@contextmanager
def tile_budget(exercise: str, side: int | None) -> Iterator[None]:
    """Raise MemoryLimit after the block if an interpreted kernel made a tile longer than `side` along an axis
    (None: no budget; see the module doc). The first such tile ends the kernel at once."""
    if side is None or not interpreting():
        yield
        return
    try:
        from triton.runtime import interpreter
    except ImportError:  # no Triton: no kernel to measure (kernels_only says none was launched)
        yield
        return
    watch = _Watch(exercise)
    builder = interpreter.InterpreterBuilder
    measured = {"create_make_range": "tl.arange", "create_masked_load": "tl.load", "create_dot": "tl.dot"}
    try:
        with ExitStack() as patches:
            for name, what in measured.items():
                original = getattr(builder, name)
                setattr(builder, name, _measured(original, what, side, watch))
                patches.callback(setattr, builder, name, original)
            yield
    finally:
        if watch.broken:
            raise watch.broken[0]


def _measured(create, what: str, side: int, watch: _Watch):
    def create_measured(self, *args, **kwargs):
        tile = create(self, *args, **kwargs)
        shape = tuple(np.shape(tile.data))
        if shape and max(shape) > side:
            raise watch.fail(MemoryLimit("kernel_tile_over_budget", exercise=watch.exercise, op=what,
                                         shape=shape, limit=side))
        return tile
    return create_measured
