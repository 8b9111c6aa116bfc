"""Which of the student's own exercise functions each exercise's function calls, read from the source: when
run_softmax is broken, every exercise built on it fails too ("unsupported operand type(s) for @: 'NoneType'
and 'Tensor'"), and its feedback should say to mend softmax first instead of leaving the student to debug
attention code that is right.

Static and by name, so it is a hint, never a verdict: a function reaches another when its body (or that of a
helper function or class it uses, defined in the package, transitively) names it, directly, through
`from .softmax import run_softmax as sm`, or as an attribute (`softmax.run_softmax`). The source is the
student's and may be anything: a file that cannot be read or parsed is left out, and nothing here runs it.
"""

import ast
import types
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path

from attnlab.core.i18n import t
from attnlab.core.results import ExerciseResult
from attnlab.core.spec import ExerciseSpec
from attnlab.core.status import EXCLUDED, Status

MAX_SOURCE_BYTES = 1 << 19  # bigger modules are no one's handwritten exercise: not read
MAX_TOTAL_BYTES = 1 << 21  # all modules read, together: the judge parses them, and an upload may hold 50 MB
MAX_HELPERS = 2000  # modules read beside the exercises' own (a notebook's package: one per cell, up to 2000)
Definition = tuple[str, str]  # (module, top-level name)


def reached(package: Path, exercises: Iterable[ExerciseSpec]) -> dict[str, tuple[str, ...]]:
    """exercise id -> the ids of the other exercises whose function it reaches, in `exercises`' order. Advice
    only: {} where reading the sources fails some way of ours, as reached_from gives []."""
    try:
        return _reached(package, list(exercises))
    except Exception:  # noqa: BLE001 -- the student tools and grade.py go on without the note
        return {}


def _reached(package: Path, exercises: list[ExerciseSpec]) -> dict[str, tuple[str, ...]]:
    own = sorted({e.module for e in exercises})
    helpers = sorted(p.stem for p in package.glob("*.py") if p.stem not in own)  # what those may import from
    parsed, budget = {}, MAX_TOTAL_BYTES
    for module in own + helpers[:MAX_HELPERS]:
        if (read := _parse(package / f"{module}.py", budget)) is not None:
            parsed[module], budget = read[0], budget - read[1]
    graph = _Graph(parsed)
    # where each exercise's function is defined: its module, else wherever the name is (a helper module it
    # imports from; a notebook's package, one module per cell)
    owners = {d: e.id for e in exercises for d in graph.starts((e.module, e.function))}
    found = {}
    for exercise in exercises:
        seen = graph.closure((exercise.module, exercise.function))
        ids = {owners[d] for d in seen if d in owners and owners[d] != exercise.id}
        found[exercise.id] = tuple(e.id for e in exercises if e.id in ids)
    return found


def reached_from(fn: Callable, exercises: Iterable[ExerciseSpec]) -> list[tuple[ExerciseSpec, Callable]]:
    """For a function defined in a notebook (check("attention", run_attention)): the other exercises whose
    function it reaches, each with the function object, in `exercises`' order. Read from the code objects'
    names, looked up in the function's globals (the notebook's namespace), through the functions and classes
    defined beside it; an exercise's function is known by its name there (`run_softmax`). Advice only: [] for
    anything it cannot read."""
    exercises = list(exercises)
    by_name = {e.function: e for e in exercises}
    module = getattr(fn, "__module__", None)
    found: dict[str, Callable] = {}
    seen, todo = {id(fn)}, [fn]
    try:
        while todo:
            current = todo.pop()
            for name, value in _globals_used(current):
                if id(value) in seen or getattr(value, "__module__", None) != module:
                    continue
                seen.add(id(value))
                if name in by_name and callable(value):
                    found.setdefault(name, value)
                if isinstance(value, (types.FunctionType, type)):
                    todo.append(value)
    except Exception:  # noqa: BLE001 -- a notebook's objects may be anything (a class whose __module__ raises)
        return []
    return [(e, found[e.function]) for e in exercises if e.function in found]


def _globals_used(obj: object) -> list[tuple[str, object]]:
    """(name, value) of each global a function's code (nested functions included), or a class's methods, use."""
    functions = [v for v in vars(obj).values() if isinstance(v, types.FunctionType)] if isinstance(obj, type) \
        else [obj] if isinstance(obj, types.FunctionType) else []
    used = []
    for function in functions:
        codes, namespace = [function.__code__], function.__globals__
        while codes:
            code = codes.pop()
            codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
            used += [(name, namespace[name]) for name in code.co_names if name in namespace]
    return used


def noted_in(results: list[ExerciseResult], package: Path, exercises: Iterable[ExerciseSpec],
             lang: str) -> list[ExerciseResult]:
    """`noted` for a package's results, as grade.py gives them: advice only, so a failure here (a bug of ours,
    in reading the sources or in the note) leaves the results as they were instead of costing the submission
    its grade."""
    if sum(map(_failing, results)) < 2:  # nothing to say (reading the sources costs ~30 ms: not for correct code)
        return results
    try:
        return noted(results, reached(package, exercises), lang)
    except Exception:  # noqa: BLE001 -- see above
        return results


def noted(results: list[ExerciseResult], reached_ids: dict[str, tuple[str, ...]], lang: str) -> list[ExerciseResult]:
    """`results` with `note`'s line first in the feedback of each exercise it applies to."""
    by_id = {r.id: r for r in results}
    out = []
    for result in results:
        said = note(result, [by_id[i] for i in reached_ids.get(result.id, ()) if i in by_id], lang)
        out.append(replace(result, feedback=f"{said}\n{result.feedback}") if said else result)
    return out


def note(result: ExerciseResult, reached_results: list[ExerciseResult], lang: str) -> str | None:
    """For a failing exercise (not an unwritten one) whose function reaches exercises that fail too: which,
    and to mend those first. None otherwise. A callee failing with exactly the caller's messages shares its
    problem (a package that does not import) rather than causing it, and is not named."""
    own = _messages(result)
    failing = [r for r in reached_results if _failing(r) and not (own and _messages(r) == own)]
    if not failing or not _failing(result) or result.status is Status.NOT_IMPLEMENTED:
        return None
    callees = ", ".join(f"{r.function} ({r.id})" for r in failing)
    key = "callee_failing" if len(failing) == 1 else "callees_failing"
    return t(key, lang, function=result.function, callees=callees, first=failing[0].id)


def _messages(result: ExerciseResult) -> tuple[str, ...]:
    return tuple(dict.fromkeys(c.message for c in result.checks if not c.passed and c.message))


def _failing(result: ExerciseResult) -> bool:
    """Failed a check of its own: not an exercise the run's budget never reached (no checks), not the judge's
    own fault (an internal error), not the quiz."""
    return (result.function is not None and result.status not in (Status.PASSED, Status.INTERNAL_ERROR)
            and result.status not in EXCLUDED
            and any(not c.passed and c.status not in (*EXCLUDED, Status.INTERNAL_ERROR) for c in result.checks))


def _parse(path: Path, budget: int) -> tuple[ast.Module, int] | None:
    """The module's tree and its size in bytes; None for a file that is missing, a link, over its size or
    `budget`, unreadable or not Python."""
    try:
        if not path.is_file() or path.is_symlink() or path.stat().st_size > min(MAX_SOURCE_BYTES, budget):
            return None
        source = path.read_bytes()[:MAX_SOURCE_BYTES + 1]
        return (ast.parse(source, filename=path.name), len(source)) if len(source) <= budget else None
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


class _Graph:
    """The package's top-level functions and classes, and the names each one's body uses."""

    def __init__(self, modules: dict[str, ast.Module]):
        self.definitions: dict[Definition, ast.AST] = {}
        self.aliases: dict[str, dict[str, str]] = {}  # module -> local name -> the name it was imported as
        self.by_name: dict[str, list[Definition]] = {}
        self._uses: dict[Definition, set[str]] = {}
        for module, tree in modules.items():
            aliases = self.aliases.setdefault(module, {})
            for node in tree.body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    self.definitions[(module, node.name)] = node
                    self.by_name.setdefault(node.name, []).append((module, node.name))
                elif isinstance(node, ast.ImportFrom):
                    aliases.update({a.asname: a.name for a in node.names if a.asname})

    def resolve(self, module: str, name: str) -> list[Definition]:
        """What a name used in `module` may stand for: its own top-level definition, else any module's."""
        name = self.aliases.get(module, {}).get(name, name)
        if (module, name) in self.definitions:
            return [(module, name)]
        return list(self.by_name.get(name, ()))  # a copy: closure pops what it is given

    def uses(self, definition: Definition) -> set[str]:
        if definition in self._uses:
            return self._uses[definition]
        names = self._uses[definition] = set()
        try:
            for node in ast.walk(self.definitions[definition]):
                if isinstance(node, ast.Name):
                    names.add(node.id)
                elif isinstance(node, ast.Attribute):
                    names.add(node.attr)
        except RecursionError:
            pass
        return names

    def starts(self, start: Definition) -> list[Definition]:
        """`start` where its module defines it, else what the name stands for there."""
        return [start] if start in self.definitions else self.resolve(*start)

    def closure(self, start: Definition) -> set[Definition]:
        """Every definition `start` (see `starts`) reaches through the names its body, and theirs, use."""
        todo = self.starts(start)
        seen: set[Definition] = set()
        while todo:
            current = todo.pop()
            for used in self.uses(current):
                for target in self.resolve(current[0], used):
                    if target not in seen:
                        seen.add(target)
                        todo.append(target)
        return seen
