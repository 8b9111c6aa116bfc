"""Editing student modules as a student would: put one run_* function (with the helpers and imports it
needs) in place of its stub, and copy a package with its local variables renamed.

Used to build synthetic classes (attnlab.instructor.synthetic) from the reference and the mutation
corpus, whose files import from `reference`: those imports become the submission's own sibling modules,
and a helper imported from a reference module (e.g. `_split_heads`) is copied in instead.
"""

import ast
import io
import random
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

from attnlab.core import paths

# module-level names of corpus files that describe the file, not the code
CORPUS_CONSTANTS = frozenset({"DIAGNOSIS", "ALSO_DIAGNOSED", "PENDING"})


@dataclass
class Closure:
    """What one function needs in another module: import lines and top-level definitions, in order."""

    imports: list[str] = field(default_factory=list)
    found: dict[str, tuple[tuple[int, int], str]] = field(default_factory=dict)  # name -> (where, source)

    @property
    def definitions(self) -> dict[str, str]:
        """Name -> source, in the order they must run: other files' first, then by line."""
        return {name: text for name, (_, text) in sorted(self.found.items(), key=lambda item: item[1][0])}


def segment(lines: list[str], node: ast.stmt) -> str:
    """The source of a top-level statement, decorators included."""
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())])
    return "".join(lines[first - 1:node.end_lineno])


def _bound_names(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return [t.id for t in targets if isinstance(t, ast.Name)]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in node.names]
    return []


def _used_names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _sibling(node: ast.ImportFrom) -> str | None:
    """The module a `from reference.m import` / `from .m import` names, else None."""
    if node.level == 1 and node.module:
        return node.module
    if node.level == 0 and node.module and node.module.startswith("reference."):
        return node.module.split(".", 1)[1]
    return None


def closure(text: str, name: str, target_module: str, source_module: str | None = None,
            into: Closure | None = None, depth: int = 0) -> Closure:
    """`name` from the module source `text`, with what it uses, ready to live in `target_module`. Another
    exercise's run_* that `text` defines is the submission's own, from `source_module` (default: the target)."""
    into = into if into is not None else Closure()
    source_module = source_module or target_module
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    statements = {bound: node for node in tree.body for bound in _bound_names(node)}
    todo, seen = [name], set()
    while todo:
        current = todo.pop()
        node = statements.get(current)
        if current in seen or node is None or current in CORPUS_CONSTANTS:
            continue
        seen.add(current)
        if current != name and current.startswith("run_") and isinstance(node, ast.FunctionDef):
            _import_exercise(into, source_module, current, current, target_module)
        elif isinstance(node, ast.ImportFrom) and _sibling(node) is not None:
            _from_sibling(node, current, target_module, into, depth + 1)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            line = ast.unparse(_only(node, current))
            into.imports += [line] if line not in into.imports else []
        else:
            todo += sorted(_used_names(node) - seen)
            into.found[current] = ((-depth, node.lineno), segment(lines, node))
    return into


def _only(node: ast.Import | ast.ImportFrom, bound: str) -> ast.stmt:
    aliases = [a for a in node.names if (a.asname or a.name).split(".")[0] == bound]
    return type(node)(**{**{f: getattr(node, f) for f in node._fields}, "names": aliases})


def _from_sibling(node: ast.ImportFrom, bound: str, target_module: str, into: Closure, depth: int) -> None:
    module = _sibling(node)
    original = next(a.name for a in node.names if (a.asname or a.name) == bound)
    if original.startswith("run_"):  # an exercise: the submission's own, from its module
        _import_exercise(into, module, original, bound, target_module)
    else:  # a helper of the reference: copied, as a student would write it themselves
        source = (paths.REFERENCE_DIR / f"{module}.py").read_text(encoding="utf-8")
        closure(source, original, target_module, module, into, depth)


def _import_exercise(into: Closure, module: str, function: str, bound: str, target_module: str) -> None:
    if module != target_module:
        line = f"from .{module} import {function}" + (f" as {bound}" if bound != function else "")
        into.imports += [line] if line not in into.imports else []


def splice(module_text: str, function: str, replacement: Closure) -> str | None:
    """`module_text` with `function` replaced by the closure's; None when a helper's name is taken by
    different code (the caller picks another replacement)."""
    tree = ast.parse(module_text)
    lines = module_text.splitlines(keepends=True)
    existing = {bound: segment(lines, node) for node in tree.body for bound in _bound_names(node)}
    helpers = {k: v for k, v in replacement.definitions.items() if k != function}
    if any(existing.get(k, v) != v for k, v in helpers.items()):
        return None
    stub = next(node for node in tree.body if getattr(node, "name", None) == function)
    first = min([stub.lineno] + [d.lineno for d in stub.decorator_list])
    new_code = "".join(v + "\n\n" for k, v in helpers.items() if k not in existing) + replacement.definitions[function]
    lines[first - 1:stub.end_lineno] = [new_code if new_code.endswith("\n") else new_code + "\n"]
    imports = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    bound = {b for n in imports for b in _bound_names(n)}
    extra = [line + "\n" for line in replacement.imports if not set(_bound_names(ast.parse(line).body[0])) <= bound]
    after = imports[-1].end_lineno if imports else 0
    return "".join(lines[:after] + extra + lines[after:])


def rename_locals(text: str, rng: random.Random) -> str:
    """The module with every function's local variables renamed and comments dropped: what a student
    hiding a copy does first. Parameters, attributes, keyword arguments and module names stay."""
    tree = ast.parse(text)
    module_names = {b for node in tree.body for b in _bound_names(node)}
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    params = {a.arg for f in functions for a in ast.walk(f.args) if isinstance(a, ast.arg)}
    stored = sorted({n.id for f in functions for n in ast.walk(f) if isinstance(n, ast.Name)
                     and isinstance(n.ctx, ast.Store)} - params - module_names)
    words = ["acc", "tmp", "val", "res", "buf", "part", "cur", "item", "data", "arr"]
    mapping = {old: f"{rng.choice(words)}_{i}" for i, old in enumerate(rng.sample(stored, len(stored)))}
    return _retokenised(text, mapping)


def _retokenised(text: str, mapping: dict[str, str]) -> str:
    lines = text.splitlines(keepends=True)
    edits: list[tuple[int, int, int, str]] = []  # (row, start col, end col, new text)
    tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    depth = 0
    for i, tok in enumerate(tokens):
        depth += tok.string in "([{" if tok.type == tokenize.OP else 0
        depth -= tok.string in ")]}" if tok.type == tokenize.OP else 0
        before = tokens[i - 1].string if i else ""
        after = tokens[i + 1].string if i + 1 < len(tokens) else ""
        keyword_argument = depth > 0 and after == "=" and before in ("(", ",")
        if tok.type == tokenize.NAME and tok.string in mapping and before != "." and not keyword_argument:
            edits.append((tok.start[0], tok.start[1], tok.end[1], mapping[tok.string]))
        elif tok.type == tokenize.COMMENT:
            edits.append((tok.start[0], tok.start[1], tok.end[1], ""))
    for row, start, end, new in sorted(edits, reverse=True):
        line = lines[row - 1]
        lines[row - 1] = line[:start] + new + line[end:]
    return "".join(line.rstrip() + "\n" if line.endswith("\n") else line for line in lines)


def copy_renamed(source: Path, target: Path, seed: int) -> None:
    """Copy a package directory, every .py file with its locals renamed (rename_locals)."""
    rng = random.Random(seed)
    for path in sorted(source.rglob("*")):
        out = target / path.relative_to(source)
        if path.is_dir():
            out.mkdir(parents=True, exist_ok=True)
            continue
        out.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".py":
            out.write_text(rename_locals(path.read_text(encoding="utf-8"), rng), encoding="utf-8")
        else:
            out.write_bytes(path.read_bytes())
