"""Shape and dtype checking of the returned tensor against the reference's jaxtyping annotations.

The check itself is jaxtyping + beartype (one memo for all arguments and the return value, so named
dims must agree). When it fails, the student reads a sentence, not a beartype dump:
"run_rope returned float32 (2, 6, 8), expected Float (... seq d_k) with seq=6, d_k=16".
"""

import inspect
import re
import threading
import types
import typing
from collections.abc import Callable
from typing import Any, get_args, get_origin

import jaxtyping
from beartype.door import is_bearable
from jaxtyping import jaxtyped
from torch import Generator, Tensor, device

from attnlab.core.i18n import Message
from attnlab.core.outcomes import ShapeError

# jaxtyping's first jaxtyped() imports JAX, where it is installed, only to hide jaxtyping's frames from
# JAX's tracebacks: a second of import and JAX's memory in every torch, NumPy or MindSpore process (a
# student's pytest, the judge). The harness's own jaxtyped() calls never run under JAX's tracing, in a JAX
# course either, so the flag only ever costs.
if hasattr(jaxtyping, "_decorator"):
    jaxtyping._decorator._tb_flag = False

# (function, what the check looks at) of calls that passed: a grading run checks the same few hundred
# shapes for every submission, so each is checked once per process
_PASSED: set[tuple] = set()
_PASSED_LOCK = threading.Lock()
MAX_PASSED = 65536
_SCALARS = (bool, int, float, str, type(None))


def tensor_hints(hint: Any) -> list[Any]:
    """The jaxtyping array types inside a hint (unwrapping `X | None` and unions)."""
    if hasattr(hint, "dim_str"):
        return [hint]
    return [h for arg in get_args(hint) for h in tensor_hints(arg)]


_SKIP = object()


def torch_hint(hint: Any) -> Any:
    """A stub's annotation as the judge checks it, on torch tensors: `Float[np.ndarray, "b n"]` (or over
    jax.Array, mindspore.Tensor) becomes `Float[torch.Tensor, "b n"]`, inside unions and tuples too; an
    annotation naming another framework's non-array type (np.random.Generator) is not checked (_SKIP)."""
    if hasattr(hint, "dim_str"):
        if getattr(hint, "array_type", Tensor) is Tensor:
            return hint
        return getattr(jaxtyping, hint.__name__.split("[")[0])[Tensor, hint.dim_str]
    args = get_args(hint)
    if not args:
        module = getattr(hint, "__module__", "builtins") or "builtins"
        known = module.split(".")[0] in ("builtins", "torch", "typing", "types", "collections")
        return hint if known or hint in (None, type(None), Ellipsis) else _SKIP
    new = tuple(torch_hint(a) for a in args)
    if _SKIP in new:
        return _SKIP
    if new == args:
        return hint
    origin = get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return typing.Union[new]  # noqa: UP007 -- `a | b` of jaxtyping types caches by printed form
    if origin is tuple:
        return tuple[new]
    return _SKIP


class _Mismatch(Exception):
    """A value does not satisfy its annotation (the sentence is ours: beartype's own message prints the
    whole tensor, milliseconds per failing call)."""


@jaxtyped(typechecker=None)
def _check(hints: dict[str, Any], args: dict[str, Any], output: Any) -> None:
    for name, value in args.items():
        if name in hints and not is_bearable(value, hints[name]):
            raise _Mismatch(name)
    if not is_bearable(output, hints["return"]):
        raise _Mismatch("return")


def bind_dims(hints: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """Named dims fixed by the arguments (e.g. d_k=16), matched right to left like jaxtyping does."""
    dims: dict[str, Any] = {}
    for name, value in args.items():
        shape = getattr(value, "shape", None)
        for hint in tensor_hints(hints.get(name)):
            if shape is None:
                continue
            names = hint.dim_str.split()
            if len(names) == 1 and names[0].startswith("*"):  # "*shape" binds the whole shape
                dims.setdefault(names[0][1:], tuple(shape))
                continue
            fixed = [n for n in names if not n.startswith(("*", "...")) and n != "..."]
            if len(fixed) > len(shape):
                continue
            tail = list(shape)[len(shape) - len(fixed):] if fixed else []
            for dim_name, size in zip(fixed, tail):
                if dim_name.isidentifier():
                    dims.setdefault(dim_name, size)
    return dims


def _signature_key(value: Any) -> tuple | None:
    """What the checks look at (a tensor's type, shape and dtype; a scalar's type and value, in case a hint
    is a Literal; each tensor of a tuple); None if uncacheable."""
    kind = type(value)
    if isinstance(value, Tensor):
        return kind, tuple(value.shape), value.dtype
    if kind is tuple and all(isinstance(v, Tensor) for v in value):
        return kind, tuple(_signature_key(v) for v in value)
    if kind in _SCALARS:
        return kind, value
    if isinstance(value, (Generator, device)):
        return (kind,)
    return None


def _call_key(function: Callable, args: dict[str, Any], output: Any) -> tuple | None:
    parts = [function, _signature_key(output)]
    for name, value in args.items():
        parts += [name, _signature_key(value)]
    return None if None in parts else tuple(parts)


def check_call(function: Callable, args: dict[str, Any], output: Any, *, name: str) -> None:
    """Raise ShapeError unless `output` (and the args) satisfy `function`'s annotations, and every output dim
    named after an int argument (`d_model: int` -> "*batch d_model") has that size: jaxtyping binds names
    from arrays only, and a law reading column d_model - 1 of an output without it must never run."""
    key = _call_key(function, args, output)
    if key is not None and key in _PASSED:
        return
    hints = {k: h for k, v in inspect.get_annotations(function).items() if (h := torch_hint(v)) is not _SKIP}
    if (named := _mismatch(hints, args, output)) is not None:
        raise _shape_error(hints, args, output, name, named)
    if key is not None:
        with _PASSED_LOCK:
            if len(_PASSED) >= MAX_PASSED:
                _PASSED.clear()
            _PASSED.add(key)


def _mismatch(hints: dict[str, Any], args: dict[str, Any], output: Any) -> dict[str, Any] | None:
    """None if `output` (and the args) satisfy the hints; else the dims the error should name besides the bound
    ones ({"...": the leading dims} where only those differ)."""
    try:
        _check(hints, args, output)
    except _Mismatch:
        return {}
    if _int_dim_differs(hints["return"], args, output):
        return {}
    leading = _leading_dims(hints, args)
    if leading is not None and _leading_dims_differ(hints["return"], output, leading):
        return {"...": leading}
    return None


def _int_dims(args: dict[str, Any]) -> dict[str, int]:
    return {name: value for name, value in args.items() if type(value) is int}


def _int_dim_differs(returns: Any, args: dict[str, Any], output: Any) -> bool:
    """Whether a returned tensor's dim named after an int argument has another size (the annotation already
    matched, so the dims line up with its names: before a variadic part from the left, after it from the right)."""
    ints = _int_dims(args)
    outputs = output if isinstance(output, tuple) else (output,)
    for hint, tensor in zip(tensor_hints(returns), outputs):
        names = hint.dim_str.split()
        variadic = next((i for i, n in enumerate(names) if n.startswith(("*", "...", "#*"))), None)
        for i, dim in enumerate(names):
            index = i if variadic is None or i < variadic else i - len(names)
            if dim in ints and tensor.shape[index] != ints[dim]:
                return True
    return False


def _leading(hint: Any, shape: tuple[int, ...]) -> tuple[int, ...] | None:
    """The dims of `shape` that the hint's anonymous `...` stands for; None if it has none."""
    names = hint.dim_str.split()
    if "..." not in names or len(shape) < len(names) - 1:
        return None
    return tuple(shape[:len(shape) - (len(names) - 1)])


def _leading_dims(hints: dict[str, Any], args: dict[str, Any]) -> tuple[int, ...] | None:
    """The tensor arguments' `...` dims broadcast together (what the output's `...` must be: jaxtyping binds
    no name to `...`, so an output with an extra or a missing batch dim passes its check), or None."""
    found = []
    for name, value in args.items():
        if isinstance(value, Tensor):
            found += [lead for hint in tensor_hints(hints.get(name))[:1]
                      if (lead := _leading(hint, tuple(value.shape))) is not None]
    return _broadcast(found) if found else None


def _broadcast(shapes: list[tuple[int, ...]]) -> tuple[int, ...] | None:
    """torch.broadcast_shapes (which imports sympy: seconds) in plain Python; None if they do not broadcast
    (the arguments are the judge's: not for this check to judge)."""
    ndim = max(len(shape) for shape in shapes)
    padded = [(1,) * (ndim - len(shape)) + shape for shape in shapes]
    result = []
    for sizes in zip(*padded):
        wider = set(sizes) - {1}
        if len(wider) > 1:
            return None
        result.append(wider.pop() if wider else 1)
    return tuple(result)


def _leading_dims_differ(returns: Any, output: Any, leading: tuple[int, ...]) -> bool:
    outputs = output if isinstance(output, tuple) else (output,)
    for hint, tensor in zip(tensor_hints(returns), outputs):
        lead = _leading(hint, tuple(tensor.shape))
        if lead is not None and lead != leading:
            return True
    return False


def _shape_error(hints: dict[str, Any], args: dict[str, Any], output: Any, name: str,
                 extra: dict[str, Any] | None = None) -> ShapeError:
    returns = hints["return"]
    joiner = ", " if getattr(returns, "__origin__", None) is tuple else " | "
    expected = joiner.join(f"{h.__name__.split('[')[0]} ({h.dim_str})" for h in tensor_hints(returns))
    dims = {**bind_dims(hints, args), **_int_dims(args), **(extra or {})}
    named = {n for h in tensor_hints(returns) for n in re.findall(r"[A-Za-z_]\w*|\.\.\.", h.dim_str)}
    known = ", ".join(f"{k}={v}" for k, v in dims.items() if k in named)
    if isinstance(output, tuple):  # several outputs: each one's dtype and shape
        got = "(" + ", ".join(_described(o) for o in output) + ")"
        dtype, expected = "", f"({expected})"
    else:
        got = tuple(output.shape) if hasattr(output, "shape") else type(output).__name__
        dtype = f" {str(output.dtype).removeprefix('torch.')}" if hasattr(output, "dtype") else ""
    error = ShapeError("shape_mismatch", name=name, dtype=dtype, got=got, expected=expected,
                       known=Message("shape_with", {"dims": known}) if known else "")
    if _first_of_several_fits(hints, args, output):
        error.with_hint(Message("hint_returned_extra", {"function": name, "count": len(output)}))
    return error


def _first_of_several_fits(hints: dict[str, Any], args: dict[str, Any], output: Any) -> bool:
    """Whether a function that should return one tensor returned several, the first of which is what it should
    return: `return output, weights`, as many tutorials write attention (said in a hint: once per exercise,
    in place of the exercise's own, which is about wrong values)."""
    returns = hints.get("return")
    if not isinstance(output, tuple) or len(output) < 2 or get_origin(returns) is tuple:
        return False
    if len(tensor_hints(returns)) != 1 or not isinstance(output[0], Tensor):
        return False
    return _mismatch(hints, args, output[0]) is None


def _described(output: Any) -> str:
    if hasattr(output, "dtype") and hasattr(output, "shape"):
        return f"{str(output.dtype).removeprefix('torch.')} {tuple(output.shape)}"
    return type(output).__name__
