"""A case's memory budget (`max_tensor_mb:` in the spec): no tensor the submission makes may be larger.

FlashAttention's point is never to hold a queries × keys tensor. A case sets `max_tensor_mb` below that
size; the call then runs under `tensor_budget`, a TorchDispatchMode that sees every tensor each ATen
operator returns and fails the call as soon as one is over budget, naming the operator, the tensor's shape
and dtype and its size: feedback that says what was materialised, not just "out of memory". In the grading
runner the address-space limit is also lowered around the call (see attnlab.grade.runner), so a
materialising submission fails while allocating instead of filling the machine's memory; an allocation
that fails is named the same way, its shape worked out on the meta device.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten, tree_map

from attnlab.core.outcomes import MemoryLimit


@dataclass
class Largest:
    bytes: int = 0
    op: str = ""
    shape: tuple[int, ...] = ()
    dtype: str = ""


class _Budget(TorchDispatchMode):
    def __init__(self, exercise: str, limit_bytes: int):
        super().__init__()
        self.exercise, self.limit, self.largest = exercise, limit_bytes, Largest()

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        return False  # as in attnlab.core.forbidden: never compiled, and importing dynamo is slow

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        try:
            result = func(*args, **kwargs)
        except (MemoryError, RuntimeError) as exc:
            if isinstance(exc, RuntimeError) and "memory" not in str(exc).lower():
                raise
            self._record(func, _meta_result(func, args, kwargs))
            raise self._over(func) from None
        self._record(func, result)
        if self.largest.bytes > self.limit:
            raise self._over(func)
        return result

    def _record(self, func, result) -> None:
        for t in tree_flatten(result)[0]:
            if isinstance(t, torch.Tensor) and t.numel() * t.element_size() > self.largest.bytes:
                self.largest = Largest(t.numel() * t.element_size(), func.overloadpacket.__name__,
                                       tuple(t.shape), str(t.dtype).removeprefix("torch."))

    def _over(self, func) -> MemoryLimit:
        big = self.largest
        return MemoryLimit("memory_tensor", exercise=self.exercise, op=big.op, shape=big.shape, dtype=big.dtype,
                           mb=big.bytes / 2**20, limit=self.limit / 2**20)


def _meta_result(func, args, kwargs):
    """What `func` would have returned, as meta tensors (shapes without memory), or None."""
    def to_meta(x):
        return x.to("meta") if isinstance(x, torch.Tensor) else x
    try:
        return func(*tree_map(to_meta, args), **tree_map(to_meta, kwargs))
    except Exception:
        return None


@contextmanager
def tensor_budget(exercise: str, limit_mb: float | None) -> Iterator[None]:
    """Raise MemoryLimit naming the tensor if the block makes one larger than `limit_mb` (None: no budget)."""
    if limit_mb is None:
        yield
        return
    with _Budget(exercise, int(limit_mb * 2**20)):
        yield
