"""A Jupyter notebook (.ipynb) read as a student package: its code cells, in order, are the package's code.

Read as grade.py and `attnlab submit` read it, never run here:
  - outputs are ignored; text cells are skipped (but counted: "cell 14" is the 14th cell from the top,
    text cells included, as the student scrolls to it);
  - IPython magics and shell escapes (`%time`, `!pip`, `files = !ls`, `%%bash` cells) are dropped, each with
    a note; a `%%writefile quiz.yaml` cell (the quiz's answers) is kept as that data file, never run, and a
    `%%writefile softmax.py` cell makes that module of the package, the notebook's imports of it made relative
    (notebook_modules);
  - `check(...)`/`hint(...)` calls and imports of attnlab at a cell's top level are dropped (check() is the
    student's, not the grader's), and `check`/`hint` are no-ops for any call left inside a function;
  - a top-level statement importing a library the course does not offer (matplotlib, IPython.display,
    google.colab: a notebook's plots and widgets) is dropped, with every later top-level statement that uses a
    name it would have bound, and so on (`without_unoffered`); grading would otherwise fail the whole notebook
    on a plot that ran in the student's own kernel. A function using such a name is kept (a run_* calling it
    fails where it does), and top-level calls of it are dropped. Jupyter's `display` is a no-op at grading;
    `get_ipython()` is dropped like an import;
The package is one file per code cell (`notebook_cell_0014.py`, the cell's lines as they run, line for line)
and an `__init__.py` that runs them in order in one namespace, as Jupyter's "Run all" does; so a traceback
names the cell and line (`cell_of`), and `run_*` functions are found on the package itself.
A notebook that cannot be read (invalid JSON, nbformat before 4, too many cells, too large, no `run_*`
defined anywhere) raises NotebookError naming the file and the problem.
"""

import ast
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from attnlab.core import notebook_modules
from attnlab.core.i18n import Message
from attnlab.core.imports import offered as is_offered

MAX_NOTEBOOK_BYTES = 50 << 20  # as an upload (grade.batch.unpack.MAX_TOTAL_BYTES): outputs count too
MAX_CELLS = 2000
MAX_CODE_BYTES = 4 << 20  # the code cells together
CELL_FILE = re.compile(r"notebook_cell_(\d+)\.py")
GRADING_ONLY = ("check", "hint")  # the notebook helpers (attnlab.student.notebook) a grader never runs
SUMMARY = "notebook.json"  # beside the made package: what the result and the class report show


class NotebookError(ValueError):
    """A notebook that cannot become a package; `message` names the file and the problem."""

    def __init__(self, key: str, /, **values):
        self.message = Message(key, values)
        super().__init__(key)

    def __str__(self) -> str:
        return self.message.text("en")


@dataclass(frozen=True)
class CodeCell:
    number: int  # 1-based position among all cells
    source: str  # as it runs: dropped lines replaced by `pass` or a comment, line for line


@dataclass(frozen=True)
class NotebookCode:
    name: str  # the notebook's file name
    cells: tuple[CodeCell, ...]
    data_files: dict[str, str] = field(default_factory=dict)  # `%%writefile quiz.yaml` cells: name -> text
    modules: dict[str, CodeCell] = field(default_factory=dict)  # `%%writefile softmax.py`: file -> its (last) cell
    notes: tuple[Message, ...] = ()  # what was dropped, per cell
    functions: dict[str, int] = field(default_factory=dict)  # run_* -> the cell defining it (last one wins)

    def summary(self) -> dict:
        """What a result carries: the file, each code cell's text, where each run_* is, the notes."""
        written = [CodeCell(c.number, f"%%writefile {name}\n{c.source}") for name, c in self.modules.items()]
        cells = sorted([*self.cells, *written], key=lambda c: c.number)
        return {"file": self.name, "cells": [{"cell": c.number, "source": c.source} for c in cells],
                "functions": self.functions, "notes": [{"key": n.key, "values": dict(n.values)} for n in self.notes]}


def cell_of(filename: str) -> int | None:
    """The cell a file of a package made from a notebook holds (None for any other file)."""
    match = CELL_FILE.fullmatch(Path(filename).name)
    return int(match.group(1)) if match else None


def load(data: bytes, name: str) -> dict:
    """The notebook's JSON, checked to be an nbformat 4 notebook of reasonable size; raises NotebookError."""
    if len(data) > MAX_NOTEBOOK_BYTES:
        raise NotebookError("notebook.too_big", file=name, mb=len(data) >> 20, limit=MAX_NOTEBOOK_BYTES >> 20)
    try:
        notebook = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise NotebookError("notebook.not_json", file=name, problem=f"not UTF-8 at byte {exc.start}") from None
    except json.JSONDecodeError as exc:
        raise NotebookError("notebook.not_json", file=name, problem=f"{exc.msg} at line {exc.lineno}, "
                            f"column {exc.colno}") from None
    if not isinstance(notebook, dict) or not isinstance(notebook.get("nbformat"), int):
        raise NotebookError("notebook.not_notebook", file=name)
    if notebook["nbformat"] < 4:
        raise NotebookError("notebook.old_format", file=name, version=notebook["nbformat"])
    cells = notebook.get("cells")
    if not isinstance(cells, list) or not all(isinstance(c, dict) for c in cells):
        raise NotebookError("notebook.not_notebook", file=name)
    if len(cells) > MAX_CELLS:
        raise NotebookError("notebook.too_many_cells", file=name, count=len(cells), limit=MAX_CELLS)
    return notebook


def text_of(cell: dict) -> str:
    """A cell's source: nbformat stores a string or a list of lines."""
    source = cell.get("source", "")
    if isinstance(source, list):
        return "".join(s for s in source if isinstance(s, str))
    return source if isinstance(source, str) else ""


ESCAPE = re.compile(r"^(\s*)(?:[%!]|[\w.]+\s*=\s*[%!])")  # %magic, !shell, x = !shell, x = %magic
HELP = re.compile(r"^\s*[?\w.]*\?\??\s*$|^\s*\?")  # obj? obj?? ?obj: IPython's help
TIME = re.compile(r"^(\s*)%time\s+(\S.*)$")  # `%time <statement>` runs the statement in the notebook's namespace
ASSIGNED = re.compile(r"^\s*([A-Za-z_]\w*)\s*=\s*([%!]\S*)")  # files = !ls: `files` is never bound at grading


def without_escapes(source: str, number: int) -> tuple[str, list[Message], dict[int, tuple[str, str]]]:
    """The cell with IPython's own syntax replaced by `pass` (same indentation, same line count), except that
    `%time <statement>` keeps the statement, which IPython runs in the notebook's namespace; and the names
    dropped lines assign (line -> (name, the escape): `files = !ls`), for without_unoffered. A cell that is
    plain Python has none (its strings may hold lines starting with % or !)."""
    try:
        ast.parse(source)
        return source, [], {}
    except SyntaxError:
        pass
    lines, notes, assigned = source.split("\n"), [], {}
    for i, line in enumerate(lines):
        timed = TIME.match(line)
        if timed:
            lines[i] = timed.group(1) + timed.group(2)
            continue
        match = ESCAPE.match(line) or (HELP.match(line) if line.strip() else None)
        if match is None:
            continue
        indent = line[: len(line) - len(line.lstrip())]
        lines[i] = f"{indent}pass  # dropped at grading: {_short(line.strip(), 60)}"
        notes.append(Message("notebook.dropped", {"cell": number, "line": i + 1, "code": _short(line.strip(), 80)}))
        target = ASSIGNED.match(line)
        if target:
            assigned[i + 1] = (target.group(1), target.group(2))
    return "\n".join(lines), notes, assigned


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _grading_only(node: ast.stmt) -> bool:
    """A top-level `check(...)`, `x = check(...)`, `import attnlab...` or `from attnlab... import ...`."""
    if isinstance(node, ast.Import):
        return all(a.name.split(".")[0] == "attnlab" for a in node.names)
    if isinstance(node, ast.ImportFrom):
        return (node.module or "").split(".")[0] == "attnlab" and node.level == 0
    value = getattr(node, "value", None) if isinstance(node, (ast.Expr, ast.Assign, ast.AnnAssign)) else None
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    return (isinstance(func, ast.Name) and func.id in GRADING_ONLY) or \
        (isinstance(func, ast.Attribute) and func.attr in GRADING_ONLY)


def without_checks(source: str) -> tuple[str, tuple[str, ...]]:
    """The cell without its top-level check()/hint() calls and attnlab imports (lines kept as comments); the
    run_* functions it defines. A cell that does not parse is kept as it is: importing it names the error."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source, ()
    lines = source.split("\n")
    spans = [(n.lineno, n.end_lineno or n.lineno) for n in tree.body]
    for node in tree.body:
        first, last = node.lineno, node.end_lineno or node.lineno
        alone = sum(1 for a, b in spans if a <= last and b >= first) == 1  # no `x = 1; check(...)` sharing a line
        if _grading_only(node) and alone and node.col_offset == 0:
            for i in range(first - 1, last):
                lines[i] = "pass  # not run at grading" if i == first - 1 else "# " + lines[i]
    defined = tuple(n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and n.name.startswith("run_"))
    return "\n".join(lines), defined


JUPYTER_ONLY = ("get_ipython",)  # a kernel's own names with nothing behind them at grading (display: a no-op)


def _loaded(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _first_line(node: ast.stmt) -> int:
    """A statement's first line: a decorated def's first decorator (its own lineno is the `def` line)."""
    return min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])


def _evaluated_at_definition(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> set[str]:
    """The names a def or class statement evaluates when it runs (decorators, defaults, bases): an
    `@interact(...)` of a dropped ipywidgets import fails the import itself, unlike a name its body uses."""
    parts = [*node.decorator_list]
    if isinstance(node, ast.ClassDef):
        parts += [*node.bases, *(k.value for k in node.keywords)]
    else:
        parts += [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
    return {name for part in parts for name in _loaded(part)}


def _bound(node: ast.AST) -> set[str]:
    """The names a top-level statement binds (assigned, imported, defined, caught)."""
    names = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            names.add(n.id)
        elif isinstance(n, ast.alias):
            names.add(_alias_name(n))
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(n.name)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            names.add(n.name)
    return names


def _unoffered_modules(node: ast.stmt, libraries: frozenset[str]) -> list[str]:
    """The top-level modules a statement imports (anywhere in it) that the course does not offer."""
    found = []
    for n in ast.walk(node):
        modules = [a.name for a in n.names] if isinstance(n, ast.Import) else \
            [n.module] if isinstance(n, ast.ImportFrom) and n.level == 0 and n.module else []
        found += [m.partition(".")[0] for m in modules if not is_offered(m.partition(".")[0], libraries)]
    return list(dict.fromkeys(found))


def _line_groups(tree: ast.Module) -> list[list[ast.stmt]]:
    """The top-level statements in order, those sharing a line (`import torch; import pylab`) in one group."""
    groups: list[list[ast.stmt]] = []
    for node in tree.body:
        if groups and _first_line(node) <= max(n.end_lineno or n.lineno for n in groups[-1]):
            groups[-1].append(node)
        else:
            groups.append([node])
    return groups


def _alias_name(alias: ast.alias) -> str:
    """The name an import binds: `import a.b` binds a, `import a.b as c` binds c."""
    return alias.asname or alias.name.partition(".")[0]


def _offered_aliases(node: ast.stmt, libraries: frozenset[str]) -> list[ast.alias]:
    """What `import torch, matplotlib.pyplot as plt` imports that the course offers (`torch`); [] where it
    imports nothing offered, only offered modules, or is not such an import."""
    if not isinstance(node, ast.Import):
        return []
    kept = [a for a in node.names if is_offered(a.name.partition(".")[0], libraries)]
    return kept if len(kept) < len(node.names) else []


def without_unoffered(source: str, number: int, libraries: frozenset[str], unbound: dict[str, str],
                      assigned: dict[int, tuple[str, str]] | None = None) -> tuple[str, list[Message]]:
    """The cell without its top-level statements that import a library the course does not offer or use a name
    in `unbound` (name -> the library or Jupyter name it comes from, carried from cell to cell and updated:
    what a dropped statement binds is unbound, what a kept one binds is bound again). An import of offered and
    other modules keeps the offered ones. A function using an unbound name is kept, its name unbound (unless it
    is a run_*: graded, it fails where it does). Of statements sharing one line, the others stay; over
    several lines, they go together.
    `assigned`: names that lines without_escapes dropped would have bound (line -> (name, why)), unbound once
    the statement holding the line has run. A cell that does not parse is kept as it is."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source, []
    lines, notes, assigned = source.split("\n"), [], dict(assigned or {})
    for group in _line_groups(tree):
        for line in [line for line in assigned if line < _first_line(group[0])]:  # in a statement before this
            name, why = assigned.pop(line)
            unbound[name] = why
        dropped = []  # (statement, what it keeps: an import's offered part or None, why, whether it imports)
        for node in group:
            modules = _unoffered_modules(node, libraries)
            used = sorted(_loaded(node) & unbound.keys())
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                    and not _evaluated_at_definition(node) & unbound.keys():
                # kept, whatever its body imports or uses (a run_* is graded, and fails where it does); a
                # helper that would fail is unbound, so its top-level calls are dropped
                if (used or modules) and not node.name.startswith("run_"):
                    unbound[node.name] = modules[0] if modules else unbound[used[0]]
                else:
                    unbound.pop(node.name, None)
            elif modules or used:
                why = modules[0] if modules else unbound[used[0]]
                aliases = _offered_aliases(node, libraries)
                part = ast.unparse(ast.Import(names=aliases)) if aliases else None
                dropped.append((node, part, why, bool(modules)))
                unbound.update(dict.fromkeys(_bound(node) - {_alias_name(a) for a in aliases}, why))
            else:
                for name in _bound(node):
                    unbound.pop(name, None)
        if not dropped:
            continue
        node, part, why, imported = dropped[0]
        first, last = _first_line(group[0]), max(n.end_lineno or n.lineno for n in group)
        key = ("notebook.not_offered_part" if part else "notebook.not_offered") if imported else "notebook.uses_dropped"
        decorated = _first_line(node) < node.lineno  # its text starts at the first decorator's line
        text = lines[_first_line(node) - 1] if decorated else ast.get_source_segment(source, node) or lines[first - 1]
        notes.append(Message(key, {"cell": number, "line": first, "name": why, "kept": part or "",
                                   "code": _short(text.split("\n")[0].strip(), 80)}))
        if first == last:  # one line: what is kept of it stays (`import torch; import pylab` runs `import torch`)
            out = {id(n): p for n, p, _, _ in dropped}
            kept = [out[id(n)] if id(n) in out else ast.get_source_segment(source, n) for n in group]
            kept = [k for k in kept if k]
            lines[first - 1] = f"{'; '.join(kept)}  # the rest is not run at grading: {why}" if kept \
                else f"pass  # not run at grading: {why}"
            continue
        for other in group:  # statements sharing lines with a dropped one over several lines go with it
            unbound.update(dict.fromkeys(_bound(other), why))
        for k in range(first, last + 1):
            lines[k - 1] = f"pass  # not run at grading: {why}" if k == first else "# " + lines[k - 1]
    unbound.update(assigned.values())  # dropped lines in the cell's last statement
    return "\n".join(lines), notes


RUNS_ONCE = re.compile(r"%%(time|capture)\b(.*)$")  # cell magics that run the cell's code as it is


def read_code(notebook: dict, name: str, data_files: frozenset[str] = frozenset(),
              libraries: tuple[str, ...] | None = None) -> NotebookCode:
    """The notebook's code cells as they run at grading; raises NotebookError when no run_* is defined.
    `libraries`: what the course offers besides the standard library (its own and its framework's); with
    them, what imports anything else is dropped (without_unoffered)."""
    cells, notes, functions, data, written = [], [], {}, {}, {}
    unbound = dict.fromkeys(JUPYTER_ONLY, JUPYTER_ONLY[0])
    names = frozenset(m for c in notebook["cells"] if c.get("cell_type") == "code"
                      and (m := notebook_modules.written_by(text_of(c).partition("\n")[0])))
    for number, cell in enumerate(notebook["cells"], 1):
        if cell.get("cell_type") != "code":
            continue
        source = text_of(cell)
        head, newline, body = source.partition("\n")
        runs = RUNS_ONCE.match(head.strip())
        captured = {}
        if runs:  # %%time, %%capture: IPython runs the cell's code once, in the notebook's namespace
            source = f"pass  # {_short(head.strip(), 60)}: the cell's code runs as it is" + newline + body
            if runs.group(1) == "capture":  # `%%capture out`: out holds what the cell printed, not at grading
                captured = {name: head.strip() for name in [w for w in runs.group(2).split() if w[0] != "-"][:1]}
        elif head.lstrip().startswith("%%"):  # another cell magic: the whole cell is not Python
            notes += _cell_magic(head.strip(), body, number, data_files, data, written)
            continue
        source, dropped, assigned = without_escapes(source, number)
        source = notebook_modules.relative_imports(source, names)  # before unoffered imports are looked for
        source, defined = without_checks(source)
        notes += dropped
        if libraries is not None:
            source, unused = without_unoffered(source, number, frozenset(libraries), unbound, assigned)
            notes += unused
            unbound.update(captured)
        functions.update({fn: number for fn in defined})
        cells.append(CodeCell(number, source))
    modules = {}
    for module, (text, number) in written.items():
        modules[f"{module}.py"] = CodeCell(number, notebook_modules.relative_imports(text, names))
        functions.update({fn: number for fn in notebook_modules.defined(text)})
    if sum(len(c.source.encode()) for c in [*cells, *modules.values()]) > MAX_CODE_BYTES:
        raise NotebookError("notebook.too_much_code", file=name, limit=MAX_CODE_BYTES >> 20)
    if not functions:
        raise NotebookError("notebook.no_functions", file=name, cells=len(cells))
    return NotebookCode(name, tuple(cells), data, modules, tuple(notes), functions)


def _cell_magic(head: str, body: str, number: int, data_files: frozenset[str], data: dict[str, str],
                written: dict[str, tuple[str, int]]) -> list[Message]:
    """A cell under a cell magic other than %%time and %%capture: not Python. `%%writefile` of a quiz's
    answers is that data file (into `data`), of a module the package's module (into `written`, `-a`
    appending: notebook_modules); any other is dropped. The notes it makes."""
    target = notebook_modules.WRITEFILE.match(head)
    module = notebook_modules.module_of(target.group(1)) if target else None
    if target and Path(target.group(1)).name in data_files:
        data[Path(target.group(1)).name] = body
        return []
    if module:
        appended = written.get(module, ("", 0))[0] if "-a" in head.split() else ""
        written[module] = (appended + body, number)
        return [Message("notebook.module_written", {"cell": number, "file": f"{module}.py"})]
    return [Message("notebook.dropped_cell", {"cell": number, "code": _short(head, 80)})]


LOADER = '''"""Made from {name} by attnlab (attnlab.core.notebook_source): its code cells, run in order in this
package's namespace, one file per cell so that errors name the cell."""


def check(*args, **kwargs):  # the notebook's own checks are not run at grading
    return None


hint = check
display = check  # Jupyter's: shows nothing at grading

for _cell in {files!r}:
    with open(__path__[0] + "/" + _cell, encoding="utf-8") as _file:
        exec(compile(_file.read(), __path__[0] + "/" + _cell, "exec"), globals())
'''


def write_package(code: NotebookCode, target: Path) -> Path:
    """`target/` as the package: __init__.py running the cell files, the cells, the data files; returns it."""
    target.mkdir(parents=True, mode=0o700)  # like the upload it is made from: the judge's alone
    files = [f"notebook_cell_{cell.number:04d}.py" for cell in code.cells]
    for cell, file in zip(code.cells, files):
        (target / file).write_text(cell.source, encoding="utf-8")
    for name, text in {**code.data_files, **{m: c.source for m, c in code.modules.items()}}.items():
        (target / name).write_text(text, encoding="utf-8")
    (target / "__init__.py").write_text(LOADER.format(name=code.name, files=tuple(files)), encoding="utf-8")
    return target


def as_package(notebook_path: Path, target: Path, data_files: frozenset[str] = frozenset(),
               libraries: tuple[str, ...] | None = None) -> NotebookCode:
    """Read `notebook_path` and write its package to `target` (`libraries`: read_code's); raises NotebookError."""
    name = notebook_path.name
    size = notebook_path.stat().st_size
    if size > MAX_NOTEBOOK_BYTES:  # before reading a byte
        raise NotebookError("notebook.too_big", file=name, mb=size >> 20, limit=MAX_NOTEBOOK_BYTES >> 20)
    code = read_code(load(notebook_path.read_bytes(), name), name, data_files, libraries)
    write_package(code, target)
    return code
