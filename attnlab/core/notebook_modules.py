"""Modules a notebook writes with `%%writefile softmax.py` (Colab's way to make them) and imports in a later
cell, `from softmax import run_softmax`, as Jupyter runs it: the file lands in the working directory, which
is on sys.path. At grading the files are the package's own modules, and the bare-name imports of them, in
the cells and in the modules alike, are made relative (`from .softmax import run_softmax`), which finds
them there; line numbers stay as they were. A later `%%writefile` of the same file replaces it, `-a`
appends to it. Names that are not plain module names in the notebook's folder, or that would stand for a
module of the standard library, are left to notebook_source (the cell is dropped with a note).
"""

import ast
import re
import sys

PLAIN = re.compile(r"(?:\./)?(?P<module>[A-Za-z_]\w*)\.py")
RESERVED = re.compile(r"__init__|notebook_cell_\d+")  # the package's own files (notebook_source)


WRITEFILE = re.compile(r"%%writefile\s+(?:-a\s+)?(\S+)\s*$")


def written_by(head: str) -> str | None:
    """The module a cell whose first line is `head` writes (`%%writefile softmax.py`), or None."""
    target = WRITEFILE.match(head.strip())
    return module_of(target.group(1)) if target else None


def module_of(target: str) -> str | None:
    """The module a `%%writefile <target>` makes, or None where it is not one the package can hold."""
    match = PLAIN.fullmatch(target)
    if match is None or RESERVED.fullmatch(match.group("module")):
        return None
    return None if match.group("module") in sys.stdlib_module_names else match.group("module")


def defined(text: str) -> tuple[str, ...]:
    """The run_* functions a module's text defines at its top level (none where it does not parse: importing
    it then names the error, at its file and line)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return ()
    return tuple(n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
                 and n.name.startswith("run_"))


def relative_imports(source: str, modules: frozenset[str]) -> str:
    """`source` with its bare-name imports of `modules` made relative, line for line."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return source  # the cell fails as it is, naming its line
    lines = source.split("\n")
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                and node.module.split(".")[0] in modules:
            row, module = node.lineno - 1, re.escape(node.module)
            lines[row] = re.sub(rf"\bfrom(\s+){module}\b", rf"from\1.{node.module}", lines[row], count=1)
        elif isinstance(node, ast.Import) and node.lineno == node.end_lineno \
                and any(a.name in modules for a in node.names):
            row = node.lineno - 1
            parts = [("from . import " if a.name in modules else "import ") + a.name
                     + (f" as {a.asname}" if a.asname else "") for a in node.names]
            line = lines[row].encode()  # ast's offsets count UTF-8 bytes
            lines[row] = (line[:node.col_offset] + "; ".join(parts).encode() + line[node.end_col_offset:]).decode()
    return "\n".join(lines)
