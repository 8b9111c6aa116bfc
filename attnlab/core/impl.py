"""The implementation under test: where the run_* functions come from and how a check calls them.

A check never touches student code directly: it goes through an `Implementation`, whose `call_many`
makes a list of calls of one function and yields, per call, a `Returned` (the output and what the call
did to its inputs) or the Outcome that call raised. `InProcessImpl` imports a package directory into this
process (pytest, notebooks) and makes each call when its result is asked for, so a law stops at its first
failure; the grader's RemoteImpl (attnlab.grade.judge.remote) sends them all to a sandboxed runner in one
request. Both raise only attnlab.core.outcomes, so checks map them to a status the same way.
"""

import hashlib
import importlib
import importlib.util
import sys
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

import torch

from attnlab.core import frameworks, imports
from attnlab.core.frames import is_student_frame
from attnlab.core.i18n import Message
from attnlab.core.notebook_source import cell_of
from attnlab.core.outcomes import NotImplementedByStudent, Outcome, SubmissionError
from attnlab.core.outputs import Output, as_output, detach, parts


@dataclass(frozen=True)
class Returned:
    """One call's output (a tensor, or a tuple of them), and the names of the inputs it modified in place
    or returned as (part of) its output."""

    output: Output
    modified: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    devices: tuple[str, ...] | None = None  # where each output was made (the runner sends them on the CPU)

    def device_of(self, index: int) -> torch.device:
        return torch.device(self.devices[index]) if self.devices else parts(self.output)[index].device


class Implementation(Protocol):
    name: str

    def call_many(self, *, exercise: str, module: str, function: str, calls: list[dict[str, Any]],
                  forbidden_calls: tuple[str, ...], deep_guard: bool = True,
                  budgets: list[float | None] | None = None) -> Iterator[Returned | Outcome]: ...

    def vjp(self, *, exercise: str, module: str, function: str, kwargs: dict[str, Any],
            forbidden_calls: tuple[str, ...], wrt: tuple[str, ...],
            cotangent: Output) -> tuple[Output, dict[str, torch.Tensor | None]]: ...


def load_package(path: Path, libraries: tuple[str, ...] | None = None) -> ModuleType:
    """Import the directory `path` (laid out like student_template/) as a fresh, uniquely named package.
    With `libraries`, its files may import only those, the standard library and the framework
    (attnlab.core.imports)."""
    path = Path(path).resolve()
    init = path / "__init__.py"
    if not init.is_file():
        raise SubmissionError("not_a_package", path=str(path))
    name = "attnlab_impl_" + hashlib.sha1(str(path).encode()).hexdigest()[:12]
    if name in sys.modules:
        return sys.modules[name]
    if libraries is not None:
        imports.enforce(name, libraries)
    spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(path)])
    package = importlib.util.module_from_spec(spec)
    sys.modules[name] = package
    try:
        spec.loader.exec_module(package)
    except Exception as exc:
        del sys.modules[name]
        raise _import_problem(None, exc, root=path) from exc
    return package


def _import_problem(what: str | None, exc: Exception, *, root: Path | None) -> SubmissionError:
    """Why importing student code failed (the package when `what` is None, else the module `what`): a
    package the course does not offer, or the exception at the student's own file:line under `root`."""
    missing = imports.not_in_course(exc)
    if missing is not None:
        return SubmissionError("library_not_in_course", package=missing.package, file=missing.file,
                               offered=", ".join(missing.offered))
    problem = describe_exception(exc, root=root)
    if what is None:
        return SubmissionError("import_package_failed", problem=problem)
    return SubmissionError("import_failed", what=what, problem=problem)


def find_function(package: ModuleType, module: str, function: str) -> Callable:
    """`package.module.function`, or `package.function` if the student moved it."""
    root = Path(next(iter(getattr(package, "__path__", [])), ".")).resolve()
    try:
        mod = importlib.import_module(f"{package.__name__}.{module}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{package.__name__}.{module}" or isinstance(exc, imports.NotInCourse):
            # the module exists but imports something missing
            raise _import_problem(f"{module}.py", exc, root=root) from exc
        mod = package
    except Exception as exc:
        raise _import_problem(f"{module}.py", exc, root=root) from exc
    fn = getattr(mod, function, None) or getattr(package, function, None)
    if not callable(fn):
        raise NotImplementedByStudent("function_missing", function=function, module=module)
    return fn


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
    if isinstance(exc, SyntaxError):  # str() repeats "(file, line N)", with the file's basename
        where = _where(exc.filename or "?", exc.lineno, root)
        message = exc.msg
    return Message("exception", {"type": type(exc).__name__, "message": message, "where": where})


def invoke(fn: Callable, *, exercise: str, kwargs: dict[str, Any], forbidden_calls: tuple[str, ...],
           deep_guard: bool = True, max_tensor_mb: float | None = None, framework: str = "torch") -> Any:
    """Call `fn(**kwargs)` under the framework's forbidden-call guard (and the case's tensor budget, if any),
    mapping failures to harness outcomes."""
    adapter = frameworks.adapter(framework)
    guard = adapter.guard(exercise, forbidden_calls, deep=deep_guard)
    try:
        with guard, adapter.budget(exercise, max_tensor_mb):
            return fn(**kwargs)
    except Outcome:
        raise
    except NotImplementedError as exc:
        raise NotImplementedByStudent("not_implemented", exercise=exercise, detail=str(exc)) from None
    except RecursionError as exc:
        raise SubmissionError("exercise_problem", exercise=exercise, problem=describe_exception(exc)) from None
    except Exception as exc:
        if (missing := imports.not_in_course(exc)) is not None:
            raise SubmissionError("library_not_in_course", package=missing.package, file=missing.file,
                                  offered=", ".join(missing.offered)) from None
        raise SubmissionError("raised", exercise=exercise, problem=describe_exception(exc)) from exc


def call_checked(fn: Callable, *, exercise: str, function: str, kwargs: dict[str, Any],
                 forbidden_calls: tuple[str, ...], deep_guard: bool = True, max_tensor_mb: float | None = None,
                 framework: str = "torch") -> Returned:
    """One call, and what it did to its inputs: used in this process and in the grading runner alike. The
    framework's adapter turns the torch arguments into its own and the output back (attnlab.core.frameworks);
    an input the call changed in place is changed in `kwargs` too, as if the call had been made on them."""
    adapter = frameworks.adapter(framework)
    converted = adapter.to_framework(kwargs)
    before = adapter.snapshot(converted)
    raw = invoke(fn, exercise=exercise, kwargs=converted, forbidden_calls=forbidden_calls, deep_guard=deep_guard,
                 max_tensor_mb=max_tensor_mb, framework=framework)
    output = adapter.to_torch(raw, function)
    modified = adapter.changed(converted, before)
    if converted is not kwargs:
        for name in modified:
            with torch.no_grad():
                kwargs[name].copy_(adapter.tensor_of(converted[name]).reshape(kwargs[name].shape))
    return Returned(detach(output), tuple(modified), tuple(adapter.aliases(converted, raw)))


class InProcessImpl:
    """Imports the package at `path` into this process. Used by pytest and notebooks."""

    def __init__(self, path: Path, name: str | None = None, *, libraries: tuple[str, ...] | None = None,
                 framework: str = "torch"):
        self.path = Path(path)
        self.name = name or self.path.name
        self.libraries = libraries  # None: any import (the mutation corpus, trusted test data)
        self.framework = framework
        self._package: ModuleType | None = None
        self._import_failure: Outcome | None = None  # imported once: a failing import is not run again

    def _function(self, module: str, function: str) -> Callable:
        if self._import_failure is not None:
            raise self._import_failure
        if self._package is None:
            adapter = frameworks.adapter(self.framework)
            adapter.prepare()
            allowed = None if self.libraries is None else (*adapter.imports, *self.libraries)
            try:
                self._package = load_package(self.path, allowed)
            except Outcome as failure:
                self._import_failure = failure
                raise
        return find_function(self._package, module, function)

    def call_many(self, *, exercise, module, function, calls, forbidden_calls, deep_guard=True, budgets=None):
        for kwargs, budget in zip(calls, budgets or [None] * len(calls)):  # each made when its result is asked for
            try:
                fn = self._function(module, function)
                yield call_checked(fn, exercise=exercise, function=function, kwargs=kwargs,
                                   forbidden_calls=forbidden_calls, deep_guard=deep_guard, max_tensor_mb=budget,
                                   framework=self.framework)
            except Outcome as outcome:
                yield outcome

    def vjp(self, *, exercise, module, function, kwargs, forbidden_calls, wrt, cotangent):
        fn = self._function(module, function)
        return frameworks.adapter(self.framework).vjp(fn, exercise=exercise, function=function, kwargs=kwargs,
                                                      forbidden_calls=forbidden_calls, wrt=wrt, cotangent=cotangent)


def vjp_call(fn: Callable, *, exercise, function, kwargs, forbidden_calls, wrt, cotangent: Output):
    """Output and gradients of <output, cotangent> (summed over the outputs of a function returning several)
    with respect to the tensors named in `wrt`; None for an argument the output does not depend on through
    autograd (no gradient reaches it)."""
    leaves = {name: kwargs[name].detach().clone().requires_grad_(True) for name in wrt}
    with torch.enable_grad():
        output = as_output(invoke(fn, exercise=exercise, kwargs={**kwargs, **leaves},
                                  forbidden_calls=forbidden_calls), function)  # torch: autograd
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


class FileImpl(InProcessImpl):
    """One .py file providing run_* functions (the mutation corpus: a bug or an alternative per file)."""

    def __init__(self, path: Path, name: str | None = None, *, framework: str = "torch"):
        super().__init__(path, name or Path(path).stem, framework=framework)

    def _function(self, module: str, function: str) -> Callable:
        if self._package is None:
            frameworks.adapter(self.framework).prepare()
            name = "attnlab_file_" + hashlib.sha1(str(self.path.resolve()).encode()).hexdigest()[:12]
            spec = importlib.util.spec_from_file_location(name, self.path)
            mod = importlib.util.module_from_spec(spec)
            # registered, so that a guard swapping forbidden functions out of student modules sees what this
            # file imported (frameworks/swap.py: `from scipy.special import softmax` at its top)
            sys.modules[name] = mod
            try:
                spec.loader.exec_module(mod)
            except Exception as exc:
                del sys.modules[name]
                raise SubmissionError("import_failed", what=self.path.name, problem=describe_exception(exc)) from exc
            self._package = mod
        fn = getattr(self._package, function, None)
        if not callable(fn):
            raise NotImplementedByStudent("function_missing", function=function, module=self.path.stem)
        return fn


class FunctionImpl(InProcessImpl):
    """One callable standing in for a whole package (a notebook's check()): it answers for `function` only."""

    def __init__(self, fn: Callable, *, function: str, framework: str = "torch"):
        if not callable(fn):
            raise TypeError(f"check() needs a function for {function}, got {type(fn).__name__}")
        super().__init__(Path("."), name=getattr(fn, "__name__", "notebook"), framework=framework)
        self._fn, self._answers_for = fn, function

    def _function(self, module: str, function: str) -> Callable:
        if function != self._answers_for:
            raise NotImplementedByStudent("only_this_function", given=self._answers_for, function=function)
        frameworks.adapter(self.framework).prepare()
        return self._fn
