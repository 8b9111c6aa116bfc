"""Run-time enforcement of a spec's forbidden calls.

Two layers:
- a TorchFunctionMode sees every torch call made from Python (torch.softmax, F.softmax, Tensor.softmax,
  torch.ops.aten._softmax, torch._C._VariableFunctions._softmax, ...) as the function object itself,
  however the student reached it (aliases, getattr with built strings, imports bound before the guard
  was installed); banned objects match by identity and "aten." names by the function's name;
- with deep=True, tripwire kernels on the banned ATen operators themselves (attnlab.core.tripwires) are
  armed, so a banned op reached inside C++ (an unbanned composite calling it) is caught too. They cost
  nothing for the operators that are not banned; the checks arm them for every case (the laws' calls
  keep to the function layer). Where torch is older than 2.9 (no torch.library.get_kernel), a
  TorchDispatchMode does this instead, at the cost of Python for every operator.
Spec names starting with "aten." are ATen overload packets; every other name is a dotted Python path.
A hit is recorded before raising, so a submission that catches the exception is still reported.
"""

import functools
import importlib
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext

from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

from attnlab.core import tripwires
from attnlab.core.outcomes import ForbiddenCall


def resolve(dotted: str) -> object:
    """Import `torch.nn.functional.softmax`-style paths; raises ValueError naming the path when wrong."""
    parts = dotted.split(".")
    for split in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        try:
            for attr in parts[split:]:
                obj = getattr(obj, attr)
        except AttributeError:
            break
        return obj
    raise ValueError(f"cannot resolve forbidden call {dotted!r}")


def operator_packet(name: str) -> str | None:
    """The ATen operator packet a forbidden-call name bans ("aten._softmax" -> "_softmax"), None for a dotted
    Python path: the operators a guard puts tripwires on (attnlab.core.tripwires.install)."""
    return name.removeprefix("aten.") if name.startswith("aten.") else None


def operator_packets(names) -> tuple[str, ...]:
    """The ATen operator packets among forbidden-call names, sorted, each once."""
    return tuple(sorted({p for name in names if (p := operator_packet(name)) is not None}))


MEMO_SIZE = 4096  # functions remembered per set of names: torch's API is smaller; code making its own is not


class _FunctionGuard(TorchFunctionMode):
    def __init__(self, banned: dict[object, str], banned_ops: dict[str, str], hits: list[str],
                 seen: dict[object, str | None]):
        super().__init__()
        self.banned, self.banned_ops, self.hits, self.seen = banned, banned_ops, hits, seen

    def __torch_function__(self, func, types, args=(), kwargs=None):
        try:  # every call of a student's code passes here: one lookup for a function met before
            name = self.seen[func]
        except KeyError:
            name = self._banned_name(func)
            if len(self.seen) < MEMO_SIZE:
                self.seen[func] = name
        except TypeError:  # unhashable
            name = self._banned_name(func)
        if name is not None:
            self.hits.append(name)
            raise RuntimeError(f"forbidden call: {name}")
        return func(*args, **(kwargs or {}))

    def _banned_name(self, func) -> str | None:
        name = self.banned.get(func) if _hashable(func) else None
        if name is None and self.banned_ops:  # torch.ops.aten._softmax(.default), torch._softmax, ...
            name = self.banned_ops.get(str(getattr(func, "__name__", "")).split(".")[0])
        return name


class _DispatchGuard(TorchDispatchMode):
    """The deep layer where torch has no torch.library.get_kernel (before 2.9): Python for every operator."""

    def __init__(self, banned_ops: dict[str, str], hits: list[str], seen: dict[object, str | None]):
        super().__init__()
        self.banned_ops, self.hits, self.seen = banned_ops, hits, seen

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        # torch wraps a mode's __torch_dispatch__ in torch._dynamo.disable, whose first call imports
        # torch._dynamo (seconds, paid by every student pytest run); nothing here is ever compiled
        return False

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        try:
            name = self.seen[func]
        except KeyError:
            name = self.banned_ops.get(func.overloadpacket.__name__)
            if len(self.seen) < MEMO_SIZE:
                self.seen[func] = name
        if name is not None:
            self.hits.append(name)
            raise RuntimeError(f"forbidden call: {name}")
        return func(*args, **(kwargs or {}))


def _hashable(obj: object) -> bool:
    try:
        hash(obj)
    except TypeError:
        return False
    return True


@functools.cache
def _split(names: tuple[str, ...]) -> tuple[dict[object, str], dict[str, str], dict, dict]:
    """The banned functions and ATen op names, and two memos (function -> banned name or None, one per layer)
    that every guard of these names shares: a function's verdict never changes."""
    functions: dict[object, str] = {}
    ops: dict[str, str] = {}
    for name in names:
        if (packet := operator_packet(name)) is not None:
            ops[packet] = name
        else:
            functions[resolve(name)] = name
    return functions, ops, {}, {}


def _deep_layer(ops: dict[str, str], hits: list[str], seen_ops: dict, deep: bool):
    if not (deep and ops):
        return nullcontext()
    return tripwires.armed(ops, hits) if tripwires.AVAILABLE else _DispatchGuard(ops, hits, seen_ops)


@contextmanager
def guard(exercise: str, names: tuple[str, ...], *, deep: bool = True) -> Iterator[list[str]]:
    """Raise ForbiddenCall after the block if any of `names` was reached inside it (deep: also by C++)."""
    if not names:
        yield []
        return
    functions, ops, seen, seen_ops = _split(tuple(names))
    hits: list[str] = []
    try:
        with _FunctionGuard(functions, ops, hits, seen), _deep_layer(ops, hits, seen_ops, deep):
            yield hits
    finally:
        if hits:
            raise ForbiddenCall(exercise, hits[0])
