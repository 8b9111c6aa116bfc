"""Calling student code: under an adapter's forbidden-call guard and tensor budget, with every failure mapped
to a harness outcome (attnlab.core.outcomes) whose message names the student's own file and line.

Below both impl.py and the framework adapters (attnlab.core.frameworks), which call student code through
here: this module knows an adapter only as the two context managers it asks for (CallGuards).
"""

import hashlib
import inspect
import os
import re
import traceback
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any, Protocol

import torch

from attnlab.core import imports
from attnlab.core.frames import is_student_frame
from attnlab.core.i18n import Message
from attnlab.core.notebook_source import cell_of
from attnlab.core.outcomes import NotImplementedByStudent, Outcome, SubmissionError
from attnlab.core.outputs import Output, as_output, detach, parts


class CallGuards(Protocol):
    """What a call needs of a framework's adapter (attnlab.core.frameworks.base.Adapter has both)."""

    def guard(self, exercise: str, names: tuple[str, ...], *, deep: bool = True) -> AbstractContextManager: ...

    def budget(self, exercise: str, limit_mb: float | None) -> AbstractContextManager: ...

    def tile_budget(self, exercise: str, side: int | None) -> AbstractContextManager: ...


class _Unguarded:
    """No forbidden calls, no tensor budget: for trusted code (the reference's own gradients)."""

    def guard(self, exercise: str, names: tuple[str, ...], *, deep: bool = True) -> AbstractContextManager:
        return nullcontext([])

    def budget(self, exercise: str, limit_mb: float | None) -> AbstractContextManager:
        return nullcontext()

    def tile_budget(self, exercise: str, side: int | None) -> AbstractContextManager:
        return nullcontext()


UNGUARDED = _Unguarded()


def _student_file(filename: str, root: Path | None) -> str:
    """The file as the student knows it: relative to their package (`root`), never where it was copied to."""
    path = Path(filename)
    if root is not None and path.is_absolute() and path.resolve().is_relative_to(root):
        return path.resolve().relative_to(root).as_posix()
    return path.name


def _where(filename: str, line: int | None, root: Path | None) -> Message:
    """file:line, or the notebook cell and line when the package was made from a notebook."""
    cell = cell_of(filename)
    if cell is not None:
        return Message("exception_in_cell", {"cell": cell, "line": line})
    return Message("exception_at", {"file": _student_file(filename, root), "line": line})


def describe_exception(exc: BaseException, *, root: Path | None = None) -> Message:
    """Type, message and the innermost frame in the student's code (file:line, relative to `root`)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if is_student_frame(f.filename)]
    where: Message | str = _where(frames[-1].filename, frames[-1].lineno, root) if frames else ""
    message = str(exc)
    if isinstance(exc, ModuleNotFoundError) and (local := student_module(exc.name)) is not None:
        if root is not None and (found := other_case(root, local)) is not None:
            return module_case(local, found, where)
        message = f"No module named {local!r}"  # not the unique name the package was imported under
    if isinstance(exc, SyntaxError):  # str() repeats "(file, line N)", with the file's basename
        if (bad := not_utf8(exc, root)) is not None:
            filename, line, byte = bad
            if _utf16(Path(filename)):  # no coding line helps: Python reads no source as UTF-16
                return Message("source_utf16", {"where": _where(filename, line, root)})
            return Message("source_not_utf8", {"byte": byte, "where": _where(filename, line, root)})
        where = _where(exc.filename or "?", exc.lineno, root)
        message = exc.msg
    return Message("exception", {"type": type(exc).__name__, "message": message, "where": where})


# the unique names impl.py imports a student's package (or single file) under: a prefix and 12 hex digits
PACKAGE_PREFIX, FILE_PREFIX = "attnlab_impl_", "attnlab_file_"
STUDENT_PACKAGE = re.compile(rf"(?:{PACKAGE_PREFIX}|{FILE_PREFIX})[0-9a-f]{{12}}\.")


def unique_name(prefix: str, key: str) -> str:
    """The module name impl.py gives the student code that `key` identifies (its path, and its import rules)."""
    return prefix + hashlib.sha1(key.encode()).hexdigest()[:12]


def module_file(module: str) -> Path:
    """A module's file in its package: softmax.py for softmax, sub/x.py for sub.x."""
    return Path(*module.split(".")).with_suffix(".py")


def student_module(name: str | None) -> str | None:
    """A module of the student's package as they name it ("softmax" for attnlab_impl_0123456789ab.softmax);
    None for any other module."""
    found = STUDENT_PACKAGE.match(name or "")
    return name[found.end():] if found else None


def other_case(root: Path, module: str) -> str | None:
    """The file under `root` that would be `module`'s but for the case of its letters (Softmax.py for softmax):
    a case-insensitive file system (Windows, macOS) hides the difference until Python's import, which
    compares names exactly everywhere. None if there is none, or `module`'s own file is there."""
    expected = module_file(module)
    if (root / expected).exists():
        return None
    try:
        names = os.listdir(root / expected.parent)
    except OSError:
        return None
    found = sorted(n for n in names if n.lower() == expected.name.lower())
    return (expected.parent / found[0]).as_posix() if found else None


def module_case(module: str, found: str, where: Message | str = "") -> Message:
    return Message("module_case", {"expected": module_file(module).as_posix(), "found": found, "where": where})


def _utf16(file: Path) -> bool:
    """Saved as UTF-16: its byte-order mark, or (without one) a NUL after each ASCII character."""
    try:
        with open(file, "rb") as f:
            head = f.read(64)
    except OSError:
        return False
    return head.startswith((b"\xff\xfe", b"\xfe\xff")) or (len(head) >= 8 and (
        head[1::2].count(0) == len(head) // 2 or head[0::2].count(0) == len(head) // 2))


def not_utf8(exc: SyntaxError, root: Path | None = None) -> tuple[str, int, str] | None:
    """(file, line, byte) of the first byte that is not UTF-8 in the file Python refused with `exc` for not being
    UTF-8, else None. Saved by an editor in the system's code page (GBK on a Chinese Windows), Python names the
    file but, for an import, the line where the token holding the byte ends (a docstring's last line); saved as
    UTF-16 (Notepad's "Unicode", PowerShell's `>`), it names neither: the first such file under `root` is."""
    text = exc.msg or ""
    if "'utf-8' codec can't decode" in text or text.startswith("Non-UTF-8 code"):
        files = [Path(exc.filename)] if exc.filename else []
    elif "null bytes" in text and not exc.filename and root is not None and root.is_dir():
        files = sorted(p for p in root.rglob("*.py") if p.stem.isidentifier())  # not macOS's ._softmax.py
    else:
        return None
    for file in files:
        try:
            data = file.read_bytes()
        except OSError:
            continue
        try:
            data.decode("utf-8")
            start = data.index(b"\0")  # UTF-8 with a NUL in it: refused as UTF-16 is
        except UnicodeDecodeError as bad:
            start = bad.start
        except ValueError:
            continue
        return str(file), data.count(b"\n", 0, start) + 1, f"0x{data[start]:02x}"
    return None


# the framework refusing operands of two dtypes: torch's "expected m1 and m2 to have the same dtype", "expected
# scalar type Double but found Float", "Index put requires the source and destination dtypes match"
DTYPE_MISMATCH = re.compile(r"same dtype|expected scalar type \w+ but found \w+|dtypes match", re.IGNORECASE)


def invoke(fn: Callable, *, exercise: str, kwargs: dict[str, Any], forbidden_calls: tuple[str, ...],
           guards: CallGuards, deep_guard: bool = True, max_tensor_mb: float | None = None,
           max_tile_side: int | None = None) -> Any:
    """Call `fn(**kwargs)` under the framework's forbidden-call guard (and the case's tensor and tile budgets,
    if any), all from `guards` (the framework's adapter), mapping failures to harness outcomes."""
    guard = guards.guard(exercise, forbidden_calls, deep=deep_guard)
    try:
        with guard, guards.budget(exercise, max_tensor_mb), guards.tile_budget(exercise, max_tile_side):
            return fn(**kwargs)
    except Outcome:
        raise
    except NotImplementedError as exc:
        raise NotImplementedByStudent("not_implemented", exercise=exercise, detail=str(exc)) from None
    except RecursionError as exc:
        raise SubmissionError("exercise_problem", exercise=exercise, problem=describe_exception(exc)) from None
    except Exception as exc:
        if (missing := imports.not_in_course(exc)) is not None:
            key, values = missing.message()
            raise SubmissionError(key, **values) from None
        if isinstance(exc, TypeError) and (renamed := renamed_parameters(fn, kwargs, exercise)) is not None:
            raise renamed from None
        raised = SubmissionError("raised", exercise=exercise, problem=describe_exception(exc))
        if DTYPE_MISMATCH.search(str(exc)):  # not about shapes, whatever inputs it raised on (leading_dims)
            raised.with_hint(Message("hint_dtype_mismatch", {}))
        raise raised from exc


def renamed_parameters(fn: Callable, kwargs: dict[str, Any], exercise: str) -> SubmissionError | None:
    """After a TypeError from `fn(**kwargs)`, where the checks' arguments (passed by the stub's parameter names)
    cannot bind to fn's parameters: the outcome naming the names it lacks (renamed or dropped), or the ones it
    requires and the checks do not pass, so that the TypeError is not blamed on the body. None when they bind
    (the TypeError came from inside) or fn has no signature to read. Asked only after a TypeError."""
    try:
        signature = inspect.signature(fn)
        signature.bind(**kwargs)
        return None
    except ValueError:  # no signature to read (a builtin)
        return None
    except TypeError:
        pass
    parameters = signature.parameters
    theirs = ", ".join(parameters)
    function = getattr(fn, "__name__", "?")
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    unknown = [] if takes_any else [name for name in kwargs if name not in parameters
                                    or parameters[name].kind is inspect.Parameter.POSITIONAL_ONLY]
    if unknown:
        return SubmissionError("parameters_renamed", exercise=exercise, function=function, theirs=theirs,
                               missing=", ".join(unknown))
    required = [name for name, p in parameters.items() if name not in kwargs and p.default is inspect.Parameter.empty
                and p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)]
    return SubmissionError("parameters_added", exercise=exercise, function=function, theirs=theirs,
                           required=", ".join(required) or "?")


def vjp_call(fn: Callable, *, exercise, function, kwargs, forbidden_calls, wrt, cotangent: Output,
             guards: CallGuards):
    """Output and gradients of <output, cotangent> (summed over the outputs of a function returning several)
    with respect to the tensors named in `wrt`, through torch's autograd; None for an argument the output
    does not depend on through autograd (no gradient reaches it)."""
    leaves = {name: kwargs[name].detach().clone().requires_grad_(True) for name in wrt}
    with torch.enable_grad():
        output = as_output(invoke(fn, exercise=exercise, kwargs={**kwargs, **leaves},
                                  forbidden_calls=forbidden_calls, guards=guards), function)
        pairs = list(zip(parts(output), parts(cotangent)))
        if len(parts(output)) != len(parts(cotangent)) or any(o.shape != c.shape for o, c in pairs):
            raise SubmissionError("vjp_shape", function=function, got=[tuple(o.shape) for o in parts(output)],
                                  expected=[tuple(c.shape) for c in parts(cotangent)])
        if not any(o.requires_grad for o in parts(output)):
            raise SubmissionError("not_differentiable", function=function).with_hint(
                Message("hint_gradient_unreached"))
        try:
            # <output, cotangent> is a scalar: backward needs no grad_outputs (whose shape check in
            # torch.autograd.grad imports sympy); the gradients are the same
            inner = sum((o * c.to(o.dtype)).sum() for o, c in pairs if o.requires_grad)
            grads = torch.autograd.grad(inner, list(leaves.values()), allow_unused=True)
        except Exception as exc:
            raise SubmissionError("backward_failed", exercise=exercise, problem=describe_exception(exc)) from exc
    return detach(output), {name: None if g is None else g.detach() for name, g in zip(wrt, grads)}
