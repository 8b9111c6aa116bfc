"""JAX: arguments arrive as `jax.Array`s on the CPU device with the case's values and dtype (bfloat16 as
jnp.bfloat16; a transposed or strided input arrives contiguous, since JAX arrays have no strides); a
`generator` arrives as a typed PRNG key, `jax.random.key(seed)` (the same seed each time it is drawn, so a
law can repeat a call). Gradients come from `jax.vjp`; forbidden shortcuts (jax.nn.softmax, ...) are caught
by swapping (swap.py), so `jax.jit(jax.nn.softmax)` and `from jax.nn import softmax` are caught too.

Precision: JAX computes in 32 bits unless `jax_enable_x64` is on, and then `jnp.ones`, `jnp.arange` and
`jax.random.uniform` default to 64 bits. A call whose arguments include a float64 tensor runs with x64 on
(`jax.enable_x64(True)`, for that call only), so its arrays and the defaults are 64-bit, as they are in a
float64 course; every other call runs in JAX's default 32-bit mode, so idiomatic float32 code (`jnp.ones`
without a dtype) stays float32, and integer inputs (token positions) arrive as int32.

Arrays are immutable: a call cannot change its inputs, so nothing is snapshot. Returning an input array
itself is still reported as an alias, as in every framework: the specs ask for a new array.
Compiling is JAX's cost: every operation is lowered and compiled once per shape and dtype in each process
(the lowerings share one MLIR context: jax_lowering.py); `attnlab status` on both assignments' references
takes 45 + 91 CPU seconds in a fresh process with no cache (docs/jax.md). Checks run on a
student's machine (pytest, attnlab, check()) therefore keep JAX's persistent compilation cache in
~/.cache/attnlab/jax (XDG_CACHE_HOME) unless one is configured: later runs load what earlier ones compiled.
A grading runner never writes one: JAX starts with none (JAX_COMPILATION_CACHE_DIR=""), and the runner reads
the judge's (GRADING_CACHE_ENV: filled from the reference, read-only to runners; attnlab.grade.judge.compile_cache)
and never writes to it, so no submission leaves compiled code behind for the next. XLA has no thread-count
flag; its CPU pools size themselves from PJRT_NPROC (the runner's environment sets 1,
attnlab.grade.sandbox.launch) or else the CPUs it may run on.
"""

import functools
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import torch

from attnlab.core.calls import describe_exception, invoke, renamed_parameters
from attnlab.core.frameworks.base import Adapter, numpy_to_tensor, tensor_to_numpy
from attnlab.core.frameworks.jax_lowering import share_ir_context
from attnlab.core.frameworks.swap import SwapGuard
from attnlab.core.i18n import Message
from attnlab.core.outcomes import SubmissionError
from attnlab.core.outputs import Output, convert_output, join, parts

GRADING_CACHE_ENV = "ATTNLAB_JAX_GRADING_CACHE"  # the judge's compilation cache, as a grading runner sees it
NEVER_WRITTEN_S = 1e9  # a compile-time threshold no compilation reaches: nothing is written
SEED_MODULUS = 2**32  # jax.random.key keeps 32 bits of a seed in 32-bit mode: the same key in both modes


class JaxAdapter(Adapter):
    name = "jax"
    module = "jax"
    array_type = "jax.Array"
    generator_kind = "jax.random.key(seed) (a typed PRNG key)"
    prefixes = ("jax.", "jaxlib.")
    imports = ("jax", "numpy")
    devices = ("cpu",)
    # runners keep torch's address-space cap (4096 MB): with a context per lowering (before jax_lowering) the
    # modern reference crashed at it in sliding_window_attention's sixth case and needed 8192; with one shared
    # context it is graded whole at 4096 (peak resident 0.8 GB checking it in-process, 3.4 GB before).
    # CPU: compiling each operation per shape, and an eager dispatch per operation: correct flash_attention
    # code spends most of it in the law with tiles of 1 x 1 (a Python iteration per score). In a fresh
    # process (benchmarks/corpus_cpu.py) the flash reference uses 35 CPU s, the corpus's lax.scan and
    # lax.fori_loop versions and FlashAttention-1's loop order in plain jnp 64-66 s (88-93 s, and 110 s under
    # contention, before the shared MLIR context). Twice torch's limit leaves the slowest correct code we
    # know 1.8x; the former three times had left 1.6x
    cpu_factor = 2.0
    extra = "jax"

    def runner_env(self, compile_cache: str | None = None) -> dict[str, str]:
        """One thread per XLA pool (they size themselves from PJRT_NPROC); no compilation cache of JAX's own
        choosing, only the judge's `compile_cache` (see prepare)."""
        return {"PJRT_NPROC": "1", "JAX_COMPILATION_CACHE_DIR": "", GRADING_CACHE_ENV: compile_cache or ""}

    def compile_cache_key(self) -> str | None:
        """jax's and jaxlib's versions and the XLA flags runners compile with (JAX's own keys hold the
        computation, the flags and the platform: a cache sealed under other flags would only ever miss)."""
        import hashlib
        from importlib.metadata import PackageNotFoundError, version

        try:
            versions = f"jax-{version('jax')}-jaxlib-{version('jaxlib')}"
        except PackageNotFoundError:
            return None
        return f"{versions}-xla-{hashlib.sha256(' '.join(quick_compile_flags()).encode()).hexdigest()[:8]}"

    def __init__(self):
        self._guard = SwapGuard(("jax", "jaxlib"))
        self._call = threading.local()  # whether the call being made runs with x64 (to_framework -> guard)

    def warm(self) -> None:
        import jax.numpy  # noqa: F401 -- import only: an operation before the fork deadlocks the runner's first

        self._guard.prime()  # the guard's index of JAX's modules, inherited by every runner

    def prepare(self) -> None:
        import jax

        share_ir_context()  # lowering each operation in a context of its own was most of JAX's cost
        quick_compiles()
        # operations finish before they return, so an error surfaces inside the student's call (where it is
        # reported as theirs), and the call's CPU time is its own
        jax.config.update("jax_cpu_enable_async_dispatch", False)
        grading = os.environ.get(GRADING_CACHE_ENV)
        if grading is not None:  # a grading runner: the judge's cache or none ("")
            if grading:
                # writable only to the judge's trusted runner filling it (the reference, in its scratch dir)
                use_cache(grading, writes=os.access(grading, os.W_OK))
        elif jax.config.jax_compilation_cache_dir is None:  # nobody chose one
            use_cache(str(compilation_cache_dir()), writes=True)

    @contextmanager
    def precision(self, x64: bool) -> Iterator[None]:
        import jax

        with jax.enable_x64(x64):
            yield

    # -- conversion -------------------------------------------------------------------------------
    def to_framework(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        self._call.x64 = any(isinstance(v, torch.Tensor) and v.dtype == torch.float64 for v in kwargs.values())
        with self.precision(self._call.x64):
            return super().to_framework(kwargs)

    def array(self, tensor: torch.Tensor) -> Any:
        import jax

        return jax.device_put(tensor_to_numpy(tensor), jax.devices("cpu")[0])

    def generator(self, seed: int) -> Any:
        import jax

        return jax.random.key(seed % SEED_MODULUS)

    def to_torch(self, value: Any, function: str) -> Output:
        return convert_output(value, function, is_array=self.is_array, convert=self.tensor_of,
                              expected=self.array_type)

    def is_array(self, value: Any) -> bool:
        """A concrete jax.Array of numbers: not a tracer leaked out of a transformation, not a PRNG key."""
        import jax

        return (isinstance(value, jax.Array) and not isinstance(value, jax.core.Tracer)
                and not jax.dtypes.issubdtype(value.dtype, jax.dtypes.prng_key))

    def numpy_of(self, value: Any) -> np.ndarray:
        return np.asarray(value)

    def tensor_of(self, value: Any) -> torch.Tensor:
        return numpy_to_tensor(np.asarray(value))

    # -- what a call did to its inputs: nothing, arrays are immutable ------------------------------
    def snapshot(self, converted: dict[str, Any]) -> dict[str, bytes]:
        return {}

    def changed(self, converted: dict[str, Any], before: dict[str, bytes]) -> list[str]:
        return []

    # -- forbidden calls and gradients --------------------------------------------------------------
    @contextmanager
    def guard(self, exercise: str, names: tuple[str, ...], *, deep: bool = True) -> Iterator[list[str]]:
        """The call's precision (see the module docstring) and the forbidden-call guard."""
        with self.precision(getattr(self._call, "x64", False)), \
                self._guard.guard(exercise, tuple(n for n in names if self.owns(n))) as hits:
            yield hits

    def vjp(self, fn: Callable, *, exercise: str, function: str, kwargs: dict[str, Any],
            forbidden_calls: tuple[str, ...], wrt: tuple[str, ...], cotangent: Output):
        """Output and gradients of <output, cotangent> with respect to `wrt`, by jax.vjp: the student's code
        runs once, traced, under the guard. An output that does not depend on the arguments through JAX
        (jax.lax.stop_gradient, a NumPy round trip) is not differentiable."""
        converted = self.to_framework(kwargs)
        single = isinstance(cotangent, torch.Tensor)
        with self.precision(self._call.x64):
            cotangents = [self.array(c) for c in parts(cotangent)]
        forward = _traced(fn, converted, wrt, function, exercise, self)
        raw, pullback = invoke(lambda: _vjp(forward, [converted[n] for n in wrt]), exercise=exercise, kwargs={},
                               forbidden_calls=forbidden_calls, guards=self)
        outputs = parts(self.to_torch(raw, function))
        if len(outputs) != len(cotangents) or any(o.shape != c.shape for o, c in zip(outputs, cotangents)):
            raise SubmissionError("vjp_shape", function=function, got=[tuple(o.shape) for o in outputs],
                                  expected=[tuple(c.shape) for c in cotangents])
        grads = self._pull(pullback, raw, cotangents, exercise)
        return join(list(outputs), single), {name: self.tensor_of(g) for name, g in zip(wrt, grads)}

    def _pull(self, pullback: Callable, raw: Any, cotangents: list, exercise: str) -> tuple:
        several = isinstance(raw, (tuple, list))
        try:
            with self.precision(self._call.x64):  # the cotangent in each output's dtype, as jax.vjp requires
                matching = [c.astype(o.dtype) for c, o in zip(cotangents, raw if several else [raw])]
                return pullback(type(raw)(matching) if several else matching[0])
        except Exception as exc:
            raise SubmissionError("backward_failed", exercise=exercise, problem=describe_exception(exc)) from exc


# XLA's CPU compiler, told to spend less time on each program: the checks' operations are small and each is
# compiled once per shape, so compiling, not running, is what costs. Less optimisation of machine code, and
# (jaxlib 0.6 and later, where the flag exists: an unknown flag stops XLA) the classic emitters instead of the
# MLIR fusion emitters. `attnlab status` on the attention reference with no cache: 48 CPU s with JAX's defaults,
# 42 with the first two, 23 with all three (of which XLA compiling: 38, 32, 16 s; docs/jax.md).
# Values differ from JAX's defaults by at most 4 units in the last place (tanh; a few sums and dot products),
# far inside every tolerance; checks here and grading runners compile alike, so verdicts agree in both
QUICK_COMPILE_FLAGS = ("--xla_backend_optimization_level=0", "--xla_llvm_disable_expensive_passes=true")
CLASSIC_EMITTERS = "--xla_cpu_use_fusion_emitters=false"  # jaxlib >= 0.6
CLASSIC_EMITTERS_SINCE = (0, 6)


@functools.cache  # prepare() runs before every call of check()'s function: jaxlib's metadata is read once
def quick_compile_flags() -> tuple[str, ...]:
    from importlib.metadata import PackageNotFoundError, version

    try:
        release = tuple(int(part) for part in version("jaxlib").split(".")[:2])
    except (PackageNotFoundError, ValueError):
        release = (0, 0)
    return (*QUICK_COMPILE_FLAGS, *([CLASSIC_EMITTERS] if release >= CLASSIC_EMITTERS_SINCE else []))


def quick_compiles() -> None:
    """quick_compile_flags() added to XLA_FLAGS, but for a flag already set there. XLA reads XLA_FLAGS when JAX
    first computes (its backend starts): a process that already computed keeps what it had."""
    flags = os.environ.get("XLA_FLAGS", "").split()
    chosen = {flag.split("=")[0] for flag in flags}
    os.environ["XLA_FLAGS"] = " ".join([*flags, *(f for f in quick_compile_flags() if f.split("=")[0] not in chosen)])


def compilation_cache_dir() -> Path:
    """Where JAX keeps what it compiled for checks run on this machine, across runs (pytest, attnlab, check())."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "attnlab" / "jax"


def use_cache(directory: str, *, writes: bool) -> None:
    """Load what is compiled in `directory` (every operation per shape: each compiles in well under a second,
    and entries of any size are kept); writes=False: never add to it (a grading runner's read-only cache: JAX
    would try to write each miss, fail and warn)."""
    import jax

    jax.config.update("jax_compilation_cache_dir", directory)
    # XLA's own caches (GPU autotuning) would put the directory's path into every key: the judge's runner
    # filling the cache sees it at another path than the runners reading it
    jax.config.update("jax_persistent_cache_enable_xla_caches", "none")
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0 if writes else NEVER_WRITTEN_S)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)


def _vjp(forward: Callable, primals: list) -> tuple[Any, Callable]:
    import jax

    return jax.vjp(forward, *primals)


def _traced(fn: Callable, converted: dict[str, Any], wrt: tuple[str, ...], function: str, exercise: str,
            adapter: JaxAdapter) -> Callable:
    """fn as a function of the `wrt` arguments alone, checking what it returns while it is traced."""
    import jax

    def forward(*leaves):
        kwargs = {**converted, **dict(zip(wrt, leaves))}
        try:
            raw = fn(**kwargs)
        except jax.errors.TracerArrayConversionError:  # np.asarray on an argument: the same cut as below
            raise SubmissionError("not_differentiable", function=function).with_hint(
                Message("hint_jax_gradient")) from None
        except TypeError:  # called inside jax.vjp: invoke sees only the lambda around it
            if (renamed := renamed_parameters(fn, kwargs, exercise)) is not None:
                raise renamed from None
            raise
        values = raw if isinstance(raw, (tuple, list)) else (raw,)
        if not all(isinstance(v, jax.Array) for v in values) or not values:
            convert_output(raw, function, is_array=adapter.is_array, convert=lambda v: v,
                           expected=adapter.array_type)  # raises: what was returned, what was expected
        if not any(isinstance(v, jax.core.Tracer) for v in values):
            raise SubmissionError("not_differentiable", function=function).with_hint(Message("hint_jax_gradient"))
        return raw

    return forward


ADAPTER = JaxAdapter()
