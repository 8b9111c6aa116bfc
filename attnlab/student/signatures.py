"""What `attnlab submit` can see without running anything: a run_* whose parameters are not the stub's.

The checks pass arguments by the stub's parameter names (attnlab.core.calls.renamed_parameters says so when a
call fails). A student who renamed `in_features` to `x` and submits without running `attnlab status` would
learn it from their grade; submit reads each exercise's `def` and says so first.
"""

import ast
import tokenize
from collections.abc import Iterable
from pathlib import Path

from attnlab.core.spec import ExerciseSpec


def keyword_parameters(source: Path, function: str) -> tuple[tuple[str, ...], set[str]] | None:
    """The names the top-level `def function` in `source` takes by keyword, and those of them without a default;
    None where there is no such def (an assignment, a class, a missing file), it takes **kwargs, or the file does
    not parse."""
    try:
        with tokenize.open(source) as f:  # its coding: line or BOM, as Python reads it
            tree = ast.parse(f.read(), filename=str(source))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            args = node.args
            if args.kwarg is not None:
                return None
            plain = [p.arg for p in (*args.posonlyargs, *args.args)]
            defaulted = set(plain[len(plain) - len(args.defaults):]) | {
                p.arg for p, default in zip(args.kwonlyargs, args.kw_defaults) if default is not None}
            names = tuple(p.arg for p in (*args.args, *args.kwonlyargs))  # not positional-only ones
            required = {p.arg for p in (*args.posonlyargs, *args.args, *args.kwonlyargs)} - defaulted
            return names, required
    return None


def renamed(package: Path, template: Path, exercises: Iterable[ExerciseSpec]) -> list[tuple[ExerciseSpec, str, str]]:
    """(exercise, the student's parameters, the stub's) for each run_* that cannot be called as the checks call
    it: a stub's parameter it does not take by name, or one of its own it requires. Nothing is said where either
    def cannot be read."""
    found = []
    for exercise in exercises:
        stub = keyword_parameters(template / f"{exercise.module}.py", exercise.function)
        theirs = keyword_parameters(package / f"{exercise.module}.py", exercise.function)
        if stub is None or theirs is None:
            continue
        (stub_names, _), (names, required) = stub, theirs
        if not set(stub_names) <= set(names) or required - set(stub_names):
            found.append((exercise, ", ".join(names), ", ".join(stub_names)))
    return found
