"""The implementation under test: where the run_* functions come from and how a check calls them.

A check never touches student code directly; it calls `impl.call(spec, kwargs)` (or `impl.vjp`).
`InProcessImpl` imports a package directory into this process (pytest, notebooks). The grader's remote
implementation (harness.grade) has the same two methods and runs the code in a sandboxed runner.
Both raise only the exceptions of harness.outcomes, so checks map them to a status the same way.
"""

import hashlib
import importlib
import importlib.util
import sys
import sysconfig
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Protocol

import torch

from harness import forbidden
from harness.outcomes import NotImplementedByStudent, Outcome, SubmissionError


class Implementation(Protocol):
    name: str

    def call(self, *, exercise: str, module: str, function: str, kwargs: dict[str, Any],
             forbidden_calls: tuple[str, ...], deep_guard: bool = True) -> torch.Tensor: ...

    def vjp(self, *, exercise: str, module: str, function: str, kwargs: dict[str, Any],
            forbidden_calls: tuple[str, ...], wrt: tuple[str, ...],
            cotangent: torch.Tensor) -> tuple[torch.Tensor, dict[str, torch.Tensor]]: ...


def load_package(path: Path) -> ModuleType:
    """Import the directory `path` (laid out like student_template/) as a fresh, uniquely named package."""
    path = Path(path).resolve()
    init = path / "__init__.py"
    if not init.is_file():
        raise SubmissionError(f"{path} is not a package: it has no __init__.py (copy student_template/)")
    name = "attnlab_impl_" + hashlib.sha1(str(path).encode()).hexdigest()[:12]
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(path)])
    package = importlib.util.module_from_spec(spec)
    sys.modules[name] = package
    try:
        spec.loader.exec_module(package)
    except Exception as exc:
        del sys.modules[name]
        raise SubmissionError(f"importing {path} failed: {describe_exception(exc)}") from exc
    return package


def find_function(package: ModuleType, module: str, function: str) -> Callable:
    """`package.module.function`, or `package.function` if the student moved it."""
    try:
        mod = importlib.import_module(f"{package.__name__}.{module}")
    except ModuleNotFoundError:
        mod = package
    except Exception as exc:
        raise SubmissionError(f"importing {module}.py failed: {describe_exception(exc)}") from exc
    fn = getattr(mod, function, None) or getattr(package, function, None)
    if not callable(fn):
        raise NotImplementedByStudent(f"{function} is missing from {module}.py")
    return fn


_LIBRARY_DIRS = tuple({sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")})
_HARNESS_DIR = str(Path(__file__).resolve().parent)


def _is_student_frame(filename: str) -> bool:
    return not filename.startswith(_LIBRARY_DIRS + (_HARNESS_DIR, "<"))


def describe_exception(exc: BaseException) -> str:
    """One line: type, message and the innermost frame in the student's code (file:line)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if _is_student_frame(f.filename)]
    where = f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
    if isinstance(exc, SyntaxError):
        where = f" (at {Path(exc.filename or '?').name}:{exc.lineno})"
    return f"{type(exc).__name__}: {exc}{where}"


def invoke(fn: Callable, *, exercise: str, kwargs: dict[str, Any], forbidden_calls: tuple[str, ...],
           deep_guard: bool = True) -> Any:
    """Call `fn(**kwargs)` under the forbidden-call guard, mapping failures to harness outcomes."""
    try:
        with forbidden.guard(exercise, forbidden_calls, deep=deep_guard):
            return fn(**kwargs)
    except Outcome:
        raise
    except NotImplementedError as exc:
        raise NotImplementedByStudent(f"{exercise}: not implemented yet ({exc})") from None
    except RecursionError as exc:
        raise SubmissionError(f"{exercise}: {describe_exception(exc)}") from None
    except Exception as exc:
        raise SubmissionError(f"{exercise}: your function raised {describe_exception(exc)}") from exc


def as_tensor(value: Any, function: str) -> torch.Tensor:
    """The plain tensor inside `value`; subclasses lose their overrides (a subclass could lie in __eq__)."""
    if not isinstance(value, torch.Tensor):
        raise SubmissionError(f"{function} returned {type(value).__name__}, expected a torch.Tensor")
    return value.as_subclass(torch.Tensor)


class InProcessImpl:
    """Imports the package at `path` into this process. Used by pytest and notebooks."""

    def __init__(self, path: Path, name: str | None = None):
        self.path = Path(path)
        self.name = name or self.path.name
        self._package: ModuleType | None = None

    def _function(self, module: str, function: str) -> Callable:
        if self._package is None:
            self._package = load_package(self.path)
        return find_function(self._package, module, function)

    def call(self, *, exercise, module, function, kwargs, forbidden_calls, deep_guard=True):
        fn = self._function(module, function)
        return as_tensor(invoke(fn, exercise=exercise, kwargs=kwargs, forbidden_calls=forbidden_calls,
                                deep_guard=deep_guard), function)

    def vjp(self, *, exercise, module, function, kwargs, forbidden_calls, wrt, cotangent):
        fn = self._function(module, function)
        return vjp_call(fn, exercise=exercise, function=function, kwargs=kwargs,
                        forbidden_calls=forbidden_calls, wrt=wrt, cotangent=cotangent)


def vjp_call(fn: Callable, *, exercise, function, kwargs, forbidden_calls, wrt, cotangent):
    """Output and gradients of <output, cotangent> with respect to the tensors named in `wrt`."""
    leaves = {name: kwargs[name].detach().clone().requires_grad_(True) for name in wrt}
    with torch.enable_grad():
        output = as_tensor(invoke(fn, exercise=exercise, kwargs={**kwargs, **leaves},
                                  forbidden_calls=forbidden_calls), function)
        if not output.requires_grad:
            raise SubmissionError(f"{function}'s output is not differentiable (was it detached, or built with"
                                  " .data / numpy?)")
        if output.shape != cotangent.shape:
            raise SubmissionError(f"{function} returned shape {tuple(output.shape)}, expected "
                                  f"{tuple(cotangent.shape)}")
        try:
            # <output, cotangent> is a scalar: backward needs no grad_outputs, whose shape check in
            # torch.autograd.grad imports sympy (~1 s in a student's pytest); the gradients are the same
            inner = (output * cotangent.to(output.dtype)).sum()
            grads = torch.autograd.grad(inner, list(leaves.values()), allow_unused=True)
        except Exception as exc:
            raise SubmissionError(f"{exercise}: backward through your function failed: "
                                  f"{describe_exception(exc)}") from exc
    return output.detach(), {name: (g if g is not None else torch.zeros_like(leaves[name])).detach()
                             for name, g in zip(wrt, grads)}


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
                raise SubmissionError(f"importing {self.path.name} failed: {describe_exception(exc)}") from exc
            self._package = mod
        fn = getattr(self._package, function, None)
        if not callable(fn):
            raise NotImplementedByStudent(f"{function} is missing from {self.path.name}")
        return fn
