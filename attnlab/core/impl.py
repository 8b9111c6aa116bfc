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
import sysconfig
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

import torch

from attnlab.core import forbidden, imports, inputs
from attnlab.core.i18n import Message
from attnlab.core.outcomes import NotImplementedByStudent, Outcome, SubmissionError


@dataclass(frozen=True)
class Returned:
    """One call's output, and the names of the inputs it modified in place or returned as its output."""

    output: torch.Tensor
    modified: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()


class Implementation(Protocol):
    name: str

    def call_many(self, *, exercise: str, module: str, function: str, calls: list[dict[str, Any]],
                  forbidden_calls: tuple[str, ...], deep_guard: bool = True) -> Iterator[Returned | Outcome]: ...

    def vjp(self, *, exercise: str, module: str, function: str, kwargs: dict[str, Any],
            forbidden_calls: tuple[str, ...], wrt: tuple[str, ...],
            cotangent: torch.Tensor) -> tuple[torch.Tensor, dict[str, torch.Tensor | None]]: ...


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


_LIBRARY_DIRS = tuple({sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")})
_HARNESS_DIR = str(Path(__file__).resolve().parents[1])


def _is_student_frame(filename: str) -> bool:
    return not filename.startswith(_LIBRARY_DIRS + (_HARNESS_DIR, "<"))


def _student_file(filename: str, root: Path | None) -> str:
    """The file as the student knows it: relative to their package (`root`), never where it was copied to."""
    path = Path(filename)
    if root is not None and path.is_absolute() and path.resolve().is_relative_to(root):
        return path.resolve().relative_to(root).as_posix()
    return path.name


def describe_exception(exc: BaseException, *, root: Path | None = None) -> Message:
    """Type, message and the innermost frame in the student's code (file:line, relative to `root`)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if _is_student_frame(f.filename)]
    where: Message | str = Message("exception_at", {"file": _student_file(frames[-1].filename, root),
                                                    "line": frames[-1].lineno}) if frames else ""
    message = str(exc)
    if isinstance(exc, SyntaxError):  # str() repeats "(file, line N)", with the file's basename
        where = Message("exception_at", {"file": _student_file(exc.filename or "?", root), "line": exc.lineno})
        message = exc.msg
    return Message("exception", {"type": type(exc).__name__, "message": message, "where": where})


def invoke(fn: Callable, *, exercise: str, kwargs: dict[str, Any], forbidden_calls: tuple[str, ...],
           deep_guard: bool = True) -> Any:
    """Call `fn(**kwargs)` under the forbidden-call guard, mapping failures to harness outcomes."""
    try:
        with forbidden.guard(exercise, forbidden_calls, deep=deep_guard):
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


def as_tensor(value: Any, function: str) -> torch.Tensor:
    """The plain tensor inside `value`; subclasses lose their overrides (a subclass could lie in __eq__)."""
    if not isinstance(value, torch.Tensor):
        raise SubmissionError("not_a_tensor", function=function, got=type(value).__name__)
    return value.as_subclass(torch.Tensor)


def call_checked(fn: Callable, *, exercise: str, function: str, kwargs: dict[str, Any],
                 forbidden_calls: tuple[str, ...], deep_guard: bool = True) -> Returned:
    """One call, and what it did to its inputs: used in this process and in the grading runner alike."""
    before = inputs.snapshot(kwargs)
    output = as_tensor(invoke(fn, exercise=exercise, kwargs=kwargs, forbidden_calls=forbidden_calls,
                              deep_guard=deep_guard), function)
    return Returned(output.detach(), tuple(inputs.changed(kwargs, before)), tuple(inputs.aliased(kwargs, output)))


class InProcessImpl:
    """Imports the package at `path` into this process. Used by pytest and notebooks."""

    def __init__(self, path: Path, name: str | None = None, *, libraries: tuple[str, ...] | None = None):
        self.path = Path(path)
        self.name = name or self.path.name
        self.libraries = libraries  # None: any import (the mutation corpus, trusted test data)
        self._package: ModuleType | None = None
        self._import_failure: Outcome | None = None  # imported once: a failing import is not run again

    def _function(self, module: str, function: str) -> Callable:
        if self._import_failure is not None:
            raise self._import_failure
        if self._package is None:
            try:
                self._package = load_package(self.path, self.libraries)
            except Outcome as failure:
                self._import_failure = failure
                raise
        return find_function(self._package, module, function)

    def call_many(self, *, exercise, module, function, calls, forbidden_calls, deep_guard=True):
        for kwargs in calls:  # each call is made when the caller asks for its result
            try:
                fn = self._function(module, function)
                yield call_checked(fn, exercise=exercise, function=function, kwargs=kwargs,
                                   forbidden_calls=forbidden_calls, deep_guard=deep_guard)
            except Outcome as outcome:
                yield outcome

    def vjp(self, *, exercise, module, function, kwargs, forbidden_calls, wrt, cotangent):
        fn = self._function(module, function)
        return vjp_call(fn, exercise=exercise, function=function, kwargs=kwargs,
                        forbidden_calls=forbidden_calls, wrt=wrt, cotangent=cotangent)


def vjp_call(fn: Callable, *, exercise, function, kwargs, forbidden_calls, wrt, cotangent):
    """Output and gradients of <output, cotangent> with respect to the tensors named in `wrt`; None for an
    argument the output does not depend on through autograd (no gradient reaches it)."""
    leaves = {name: kwargs[name].detach().clone().requires_grad_(True) for name in wrt}
    with torch.enable_grad():
        output = as_tensor(invoke(fn, exercise=exercise, kwargs={**kwargs, **leaves},
                                  forbidden_calls=forbidden_calls), function)
        if not output.requires_grad:
            raise SubmissionError("not_differentiable", function=function).with_hint(
                Message("hint_gradient_unreached"))
        if output.shape != cotangent.shape:
            raise SubmissionError("vjp_shape", function=function, got=tuple(output.shape),
                                  expected=tuple(cotangent.shape))
        try:
            # <output, cotangent> is a scalar: backward needs no grad_outputs (whose shape check in
            # torch.autograd.grad imports sympy); the gradients are the same
            inner = (output * cotangent.to(output.dtype)).sum()
            grads = torch.autograd.grad(inner, list(leaves.values()), allow_unused=True)
        except Exception as exc:
            raise SubmissionError("backward_failed", exercise=exercise, problem=describe_exception(exc)) from exc
    return output.detach(), {name: None if g is None else g.detach() for name, g in zip(wrt, grads)}


class FileImpl(InProcessImpl):
    """One .py file providing run_* functions (the mutation corpus: a bug or an alternative per file)."""

    def __init__(self, path: Path, name: str | None = None):
        super().__init__(path, name or Path(path).stem)

    def _function(self, module: str, function: str) -> Callable:
        if self._package is None:
            name = "attnlab_file_" + hashlib.sha1(str(self.path.resolve()).encode()).hexdigest()[:12]
            spec = importlib.util.spec_from_file_location(name, self.path)
            mod = importlib.util.module_from_spec(spec)
            try:
                spec.loader.exec_module(mod)
            except Exception as exc:
                raise SubmissionError("import_failed", what=self.path.name, problem=describe_exception(exc)) from exc
            self._package = mod
        fn = getattr(self._package, function, None)
        if not callable(fn):
            raise NotImplementedByStudent("function_missing", function=function, module=self.path.stem)
        return fn


class FunctionImpl(InProcessImpl):
    """One callable standing in for a whole package (a notebook's check()): it answers for `function` only."""

    def __init__(self, fn: Callable, *, function: str):
        if not callable(fn):
            raise TypeError(f"check() needs a function for {function}, got {type(fn).__name__}")
        super().__init__(Path("."), name=getattr(fn, "__name__", "notebook"))
        self._fn, self._answers_for = fn, function

    def _function(self, module: str, function: str) -> Callable:
        if function != self._answers_for:
            raise NotImplementedByStudent("only_this_function", given=self._answers_for, function=function)
        return self._fn
