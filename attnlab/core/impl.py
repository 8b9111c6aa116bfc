"""The implementation under test: where the run_* functions come from and how a check calls them.

A check never touches student code directly: it goes through an `Implementation`, whose `call_many`
makes a list of calls of one function and yields, per call, a `Returned` (the output and what the call
did to its inputs) or the Outcome that call raised. `InProcessImpl` imports a package directory into this
process (pytest, notebooks) and makes each call when its result is asked for, so a law stops at its first
failure; the grader's RemoteImpl (attnlab.grade.judge.remote) sends them all to a sandboxed runner in one
request. Both raise only attnlab.core.outcomes, so checks map them to a status the same way.
"""

import importlib
import importlib.machinery
import importlib.util
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

import torch

from attnlab.core import imports
from attnlab.core.calls import (
    FILE_PREFIX,
    PACKAGE_PREFIX,
    describe_exception,
    invoke,
    module_case,
    other_case,
    unique_name,
)
from attnlab.core.outcomes import NotImplementedByStudent, Outcome, SubmissionError
from attnlab.core.outputs import Output, detach, parts
from attnlab.core.spec import CaseBudget

if TYPE_CHECKING:
    from attnlab.core.frameworks.base import Adapter


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
                  budgets: list[CaseBudget | float | None] | None = None) -> Iterator[Returned | Outcome]: ...

    def vjp(self, *, exercise: str, module: str, function: str, kwargs: dict[str, Any],
            forbidden_calls: tuple[str, ...], wrt: tuple[str, ...],
            cotangent: Output) -> tuple[Output, dict[str, torch.Tensor | None]]: ...


def load_package(path: Path, libraries: tuple[str, ...] | None = None) -> ModuleType:
    """Import the directory `path` (laid out like student_template/) as a fresh, uniquely named package.
    With `libraries`, its files may import only those, the standard library and the framework
    (attnlab.core.imports)."""
    path = Path(path).resolve()
    init = path / "__init__.py"
    has_init = init.is_file()
    if not has_init and not (path.is_dir() and any(path.glob("*.py"))):
        raise SubmissionError("not_a_package", path=str(path))
    # one package per directory and import rules: a load under other rules must not get one restricted by these
    name = unique_name(PACKAGE_PREFIX, f"{path}\0{libraries!r}")
    if name in sys.modules:
        return sys.modules[name]
    if libraries is not None:
        imports.enforce(name, libraries)
    if has_init:
        spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(path)])
    else:  # modules without __init__.py, as grade.py takes them (an empty one added): a package with no code
        spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
        spec.submodule_search_locations = [str(path)]
    package = importlib.util.module_from_spec(spec)
    sys.modules[name] = package
    try:
        if spec.loader is not None:
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
        key, values = missing.message()
        return SubmissionError(key, **values)
    problem = describe_exception(exc, root=root)
    if what is None:
        return SubmissionError("import_package_failed", problem=problem)
    return SubmissionError("import_failed", what=what, problem=problem)


def find_function(package: ModuleType, module: str, function: str) -> Callable:
    """`package.module.function`, or `package.function` if the student moved it."""
    try:
        mod = importlib.import_module(f"{package.__name__}.{module}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{package.__name__}.{module}" or isinstance(exc, imports.NotInCourse):
            # the module exists but imports something missing
            raise _import_problem(f"{module}.py", exc, root=_package_root(package)) from exc
        mod = package
    except Exception as exc:
        raise _import_problem(f"{module}.py", exc, root=_package_root(package)) from exc
    fn = getattr(mod, function, None) or getattr(package, function, None)
    if not callable(fn):
        if mod is package and (found := other_case(_package_root(package), module)) is not None:
            raise SubmissionError("import_failed", what=f"{module}.py", problem=module_case(module, found))
        raise NotImplementedByStudent("function_missing", function=function, module=module)
    return fn


def _package_root(package: ModuleType) -> Path:
    """The package's directory, for error messages only (resolving it is a realpath: not on every call)."""
    return Path(next(iter(getattr(package, "__path__", [])), ".")).resolve()


def call_checked(fn: Callable, *, exercise: str, function: str, kwargs: dict[str, Any],
                 forbidden_calls: tuple[str, ...], adapter: "Adapter", deep_guard: bool = True,
                 max_tensor_mb: float | None = None, max_tile_side: int | None = None) -> Returned:
    """One call, and what it did to its inputs: used in this process and in the grading runner alike. The
    framework's adapter turns the torch arguments into its own and the output back (attnlab.core.frameworks);
    an input the call changed in place is changed in `kwargs` too, as if the call had been made on them."""
    converted = adapter.to_framework(kwargs)
    before = adapter.snapshot(converted)
    raw = invoke(fn, exercise=exercise, kwargs=converted, forbidden_calls=forbidden_calls, guards=adapter,
                 deep_guard=deep_guard, max_tensor_mb=max_tensor_mb, max_tile_side=max_tile_side)
    output = adapter.to_torch(raw, function)
    modified = adapter.changed(converted, before)
    if converted is not kwargs:
        for name in modified:
            with torch.no_grad():
                kwargs[name].copy_(adapter.tensor_of(converted[name]).reshape(kwargs[name].shape))
    return Returned(detach(output), tuple(modified), tuple(adapter.aliases(converted, raw)))


class InProcessImpl:
    """Imports the package at `path` into this process. Used by pytest and notebooks."""

    def __init__(self, path: Path, name: str | None = None, *, adapter: "Adapter",
                 libraries: tuple[str, ...] | None = None):
        self.path = Path(path)
        self.name = name or self.path.name
        self.libraries = libraries  # None: any import (the mutation corpus, trusted test data)
        self.adapter = adapter  # the framework the package is written in
        self._package: ModuleType | None = None
        self._import_failure: Outcome | None = None  # imported once: a failing import is not run again

    def _function(self, module: str, function: str) -> Callable:
        if self._import_failure is not None:
            raise self._import_failure
        if self._package is None:
            self.adapter.prepare()
            allowed = None if self.libraries is None else imports.course_offers(self.adapter, self.libraries)
            try:
                self._package = load_package(self.path, allowed)
            except Outcome as failure:
                self._import_failure = failure
                raise
        return find_function(self._package, module, function)

    def call_many(self, *, exercise, module, function, calls, forbidden_calls, deep_guard=True, budgets=None):
        for kwargs, budget in zip(calls, budgets or [None] * len(calls)):  # each made when its result is asked for
            budget = CaseBudget.of(budget)
            try:
                fn = self._function(module, function)
                yield call_checked(fn, exercise=exercise, function=function, kwargs=kwargs,
                                   forbidden_calls=forbidden_calls, deep_guard=deep_guard,
                                   max_tensor_mb=budget.tensor_mb, max_tile_side=budget.tile_side,
                                   adapter=self.adapter)
            except Outcome as outcome:
                yield outcome

    def vjp(self, *, exercise, module, function, kwargs, forbidden_calls, wrt, cotangent):
        fn = self._function(module, function)
        return self.adapter.vjp(fn, exercise=exercise, function=function, kwargs=kwargs,
                                forbidden_calls=forbidden_calls, wrt=wrt, cotangent=cotangent)


class FileImpl(InProcessImpl):
    """One .py file providing run_* functions (the mutation corpus: a bug or an alternative per file)."""

    def __init__(self, path: Path, name: str | None = None, *, adapter: "Adapter"):
        super().__init__(path, name or Path(path).stem, adapter=adapter)

    def _function(self, module: str, function: str) -> Callable:
        if self._package is None:
            self.adapter.prepare()
            name = unique_name(FILE_PREFIX, str(self.path.resolve()))
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

    def __init__(self, fn: Callable, *, function: str, adapter: "Adapter"):
        if not callable(fn):
            raise TypeError(f"check() needs a function for {function}, got {type(fn).__name__}")
        super().__init__(Path("."), name=getattr(fn, "__name__", "notebook"), adapter=adapter)
        self._fn, self._answers_for = fn, function

    def _function(self, module: str, function: str) -> Callable:
        if function != self._answers_for:
            raise NotImplementedByStudent("only_this_function", given=self._answers_for, function=function)
        self.adapter.prepare()
        return self._fn
