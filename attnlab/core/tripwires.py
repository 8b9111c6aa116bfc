"""The forbidden-call guard's deep layer: tripwire kernels on the banned ATen operators themselves.

The first guard that bans an ATen operator replaces its kernel on every backend that has one (CPU, CUDA,
...) with a tripwire (torch.library, with the kernel it replaced kept: torch.library.get_kernel). While a
guard that bans the operator is armed, the tripwire records the hit and raises; otherwise it calls the kernel
it replaced, so code outside a guard (the reference, the harness) runs as before. A banned operator is caught
however it was reached: from Python, or inside C++ by an unbanned composite (F.cross_entropy runs
_log_softmax), on any thread while the guard is armed (the autograd engine's too).

Why not a TorchDispatchMode, as before: a mode runs Python for every operator of the student's code (about
as much again as a small operator costs: benchmarks/micro.py; a quarter of the CPU time of checking the torch
reference's attention assignment in one process); a tripwire costs nothing for the operators that are not
banned. Operators with a CompositeImplicitAutograd kernel (aten.softmax.int,
aten.scaled_dot_product_attention, aten.dropout) are left alone: under autograd they decompose before any
backend kernel runs (a tripwire there would fire only in inference mode), and the dispatch mode never saw
them under autograd either; ban what they decompose into, as the specs do.
"""

import threading
import warnings

import torch

# backends a tripwire is put on, where the operator has a kernel there (a CPU-only build has few CUDA ones)
BACKENDS = ("CPU", "CUDA", "HIP", "MPS", "XPU", "HPU", "MTIA", "PrivateUse1", "SparseCPU", "SparseCUDA",
            "SparseCsrCPU", "SparseCsrCUDA", "NestedTensorCPU", "NestedTensorCUDA", "QuantizedCPU", "QuantizedCUDA")

AVAILABLE = hasattr(torch.library, "get_kernel")  # torch >= 2.9; before it, attnlab.core.forbidden uses a mode
_lock = threading.Lock()
_library: torch.library.Library | None = None  # kept for the life of the process: it holds the tripwires
_wired: set[str] = set()  # operator packets ("_softmax") whose overloads carry tripwires
_armed: list[tuple[dict[str, str], list[str]]] = []  # per armed guard: packet -> banned spec name, its hits


def install(packets) -> None:
    """Tripwires on every overload of each ATen operator packet named ("_softmax"); once per process."""
    missing = [p for p in packets if p not in _wired]
    if not missing:
        return
    global _library
    with _lock, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "overriding a previously registered kernel": that is the point
        if _library is None:
            _library = torch.library.Library("aten", "IMPL")
        for packet in missing:
            if packet in _wired:
                continue
            try:
                overloads = getattr(torch.ops.aten, packet).overloads()
            except (AttributeError, RuntimeError):
                overloads = []  # not an operator of this torch: nothing can run it
            for overload in overloads:
                _wire(packet, packet if overload == "default" else f"{packet}.{overload}")
            _wired.add(packet)


def _wire(packet: str, overload: str) -> None:
    qualified = f"aten::{overload}"
    if torch._C._dispatch_has_kernel_for_dispatch_key(qualified, torch._C.DispatchKey.CompositeImplicitAutograd):
        return
    for backend in BACKENDS:
        key = torch._C.DispatchKey.__members__.get(backend)
        if key is None or not torch._C._dispatch_has_computed_kernel_for_dispatch_key(qualified, backend):
            continue
        try:
            if torch._C._dispatch_kernel_for_dispatch_key_is_fallthrough(qualified, key):
                continue
            kernel = torch.library.get_kernel(qualified, key)
        except RuntimeError:  # listed, yet nothing to call (CUDA's on a CPU-only build)
            continue
        _library.impl(overload, _tripwire(packet, kernel), backend, with_keyset=True)


def _tripwire(packet: str, kernel):
    def tripwire(keyset, *args, **kwargs):
        for banned, hits in tuple(_armed):
            name = banned.get(packet)
            if name is not None:
                hits.append(name)  # before raising: a submission that catches the exception is still reported
                raise RuntimeError(f"forbidden call: {name}")
        return kernel.call_boxed(keyset, *args, **kwargs)

    return tripwire


class armed:
    """While inside, a banned operator (packet -> the spec's name for it) that runs is appended to `hits`
    and raises. Nests; every armed guard is checked."""

    def __init__(self, banned: dict[str, str], hits: list[str]):
        install(banned)
        self._entry = (banned, hits)

    def __enter__(self) -> list[str]:
        _armed.append(self._entry)
        return self._entry[1]

    def __exit__(self, *exc) -> None:
        for i in range(len(_armed) - 1, -1, -1):
            if _armed[i] is self._entry:
                del _armed[i]
                break
