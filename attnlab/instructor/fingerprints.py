"""Fingerprints of Python code for similarity detection: every statement normalised through the AST and
hashed alone and together with the statements it depends on.

A file is cut into top-level segments (a function, a class, an assignment). Each statement of a segment
(a simple statement, or the header of a compound one) is unparsed from its AST after:
  - names bound in the code (variables, parameters, functions, classes) become V; imported names become
    the dotted name they import (`F` -> torch.nn.functional); builtins stay;
  - attributes the submission defines (stored anywhere, `self.q_proj = ...`, or methods of its classes)
    become A; library attributes (`.transpose`) stay; so do keyword names, unless the call is to the
    submission's own code;
  - strings become 'S' and annotations vanish; docstrings, comments and layout are not in the AST.
Two fingerprints per statement: h0, its text; h1, its text with the texts of what it depends on (the
last statement before it that set each name or attribute it reads, and the compound statement around
it). Renaming, reformatting, new comments, reordered independent statements and inserted dead code leave
both unchanged for every statement that was there. Hashes are blake2b of the text: the same on every
machine and run. A statement's text is cached by its source and how the names in it are bound, and a
segment's result (attnlab.instructor.segments) by its text and the names it sees: a class of thousands
shares most of its code.
"""

import ast
import builtins
import hashlib
import re
from dataclasses import dataclass

BUILTINS = frozenset(dir(builtins))
WORD = re.compile(r"[A-Za-z_]\w*")
TOKEN = re.compile(r"\w+|[^\w\s]")
STORED_ATTRIBUTE = re.compile(r"\.\s*([A-Za-z_]\w*)\s*(?::[^=\n]*)?=(?!=)")
DEFINED = re.compile(r"^\s*def\s+([A-Za-z_]\w*)", re.MULTILINE)
MAX_WEIGHT = 30  # tokens: a very long statement counts as much as a long one
COMPOUND = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.For, ast.AsyncFor, ast.While, ast.If,
            ast.With, ast.AsyncWith, ast.Try)


@dataclass(frozen=True)
class Statement:
    """One normalised statement: where it is (lines of its file) and its two fingerprints."""

    path: str
    first: int
    last: int
    weight: int  # tokens of its normalised text, at most MAX_WEIGHT
    h0: int
    h1: int


@dataclass(frozen=True)
class Segment:
    """A top-level statement of a file: the names it binds and reads, its text and statements."""

    names: tuple[str, ...]
    path: str
    text: str
    uses: frozenset[str]  # names it reads and does not bind itself
    statements: tuple[Statement, ...]


def digest(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little") >> 1


def defined_attributes(texts) -> frozenset[str]:
    """Attribute names a submission defines: stored somewhere (`self.q_proj = ...`) or a def's name."""
    found = set()
    for text in texts:
        found.update(STORED_ATTRIBUTE.findall(text))
        found.update(DEFINED.findall(text))
    return frozenset(found)


def imported_names(nodes) -> dict[str, str]:
    """Name -> the dotted name it imports, for the import statements among `nodes` (relative imports:
    the submission's own code, left out)."""
    found = {}
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                found[alias.asname or top] = alias.name if alias.asname else top
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            for alias in node.names:
                found[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return found


def _walk(node: ast.AST) -> list[ast.AST]:
    """`node` and every node under it, each before its children (what _abstract needs), without the
    Load/Store contexts: ast.walk's generators cost most of fingerprinting a large class."""
    found, todo = [], [node]
    pop, append, extend = todo.pop, found.append, todo.extend
    while todo:
        current = pop()
        append(current)
        for name in current._fields:
            value = getattr(current, name, None)
            if type(value) is list:
                extend(v for v in reversed(value) if isinstance(v, ast.AST))
            elif isinstance(value, ast.AST) and not isinstance(value, ast.expr_context):
                todo.append(value)
    return found


def _survey(stmt: ast.AST, attributes: frozenset[str]) -> tuple:
    """One walk over a statement's header: what it reads and writes (names, and `.attr` of the
    submission's attributes), the names it binds (stores, parameters, defs, imports, except and global
    names) and loads, what its imports bring in, and its nodes (for _abstract)."""
    reads, writes, bound, read, imports = set(), set(), set(), set(), []
    nodes = [stmt]
    for part in _header_parts(stmt):
        for sub in _walk(part):
            nodes.append(sub)
            kind = type(sub)
            if kind is ast.Name:
                if type(sub.ctx) is ast.Load:
                    reads.add(sub.id)
                    read.add(sub.id)
                else:
                    writes.add(sub.id)
                    bound.add(sub.id)
            elif kind is ast.Attribute and sub.attr in attributes:
                (writes if type(sub.ctx) is ast.Store else reads).add("." + sub.attr)
            elif kind is ast.arg:
                bound.add(sub.arg)
                writes.add(sub.arg)
            elif kind in (ast.Import, ast.ImportFrom):
                bound.update((a.asname or a.name).split(".")[0] for a in sub.names)
                imports.append(sub)
            elif kind in (ast.Global, ast.Nonlocal):
                bound.update(sub.names)
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or \
            (isinstance(stmt, ast.ExceptHandler) and stmt.name):
        writes.add(stmt.name)
        bound.add(stmt.name)
    if isinstance(stmt, ast.AugAssign):
        reads |= writes
    return frozenset(reads), frozenset(writes), frozenset(bound), frozenset(read), imported_names(imports), nodes


def _abstract(nodes: list[ast.AST], imports: dict[str, str], attributes: frozenset[str], bound: set[str]) -> None:
    """Rewrites a segment's nodes in place (see the module doc). `nodes` is in ast.walk's order: a call
    comes before its callee, which is judged by its name as written."""
    shadowed = bound - set(imports)
    for node in nodes:
        kind = type(node)
        if kind is ast.Name:
            if node.id in imports and node.id not in shadowed:
                node.id = imports[node.id]
            elif node.id not in BUILTINS or node.id in bound:
                node.id = "V"
        elif kind is ast.Attribute:
            if node.attr in attributes:
                node.attr = "A"
        elif kind is ast.Call:
            func = node.func
            own = (type(func) is ast.Name and func.id not in imports and func.id not in BUILTINS) or \
                (type(func) is ast.Attribute and func.attr in attributes)
            if own:
                for keyword in node.keywords:
                    keyword.arg = "V" if keyword.arg else None
        elif kind is ast.Constant:
            if isinstance(node.value, (str, bytes)):
                node.value = "S"
        elif kind is ast.JoinedStr:
            node.values = [ast.Constant("S")]
        elif kind is ast.arg:
            node.arg, node.annotation = "V", None
        elif kind is ast.AnnAssign:
            node.annotation = ast.Name("V")
        elif kind in (ast.FunctionDef, ast.AsyncFunctionDef):
            node.returns = None
        elif kind is ast.alias:
            node.asname = None


def _header(node: ast.AST) -> str:
    """The normalised text of a simple statement, or of a compound statement's header."""
    unparse = ast.unparse
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return "".join(f"@{unparse(d)} " for d in node.decorator_list) + f"def V({unparse(node.args)})"
    if isinstance(node, ast.ClassDef):
        return f"class V({', '.join(unparse(b) for b in [*node.bases, *node.keywords])})"
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return f"for {unparse(node.target)} in {unparse(node.iter)}"
    if isinstance(node, (ast.While, ast.If)):
        return f"{'while' if isinstance(node, ast.While) else 'if'} {unparse(node.test)}"
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return f"with {', '.join(unparse(item) for item in node.items)}"
    if isinstance(node, ast.Try):
        return "try"
    if isinstance(node, ast.ExceptHandler):
        return f"except {unparse(node.type) if node.type else ''}"
    return unparse(node)


def _header_parts(node: ast.AST) -> list[ast.AST]:
    """The parts of a statement that its header reads and writes (a compound statement's body is not)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return [*node.decorator_list, node.args, *([node.returns] if node.returns else [])]
    if isinstance(node, ast.ClassDef):
        return [*node.decorator_list, *node.bases, *node.keywords]
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return [node.target, node.iter]
    if isinstance(node, (ast.While, ast.If)):
        return [node.test]
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return list(node.items)
    if isinstance(node, ast.ExceptHandler):
        return [node.type] if node.type else []
    return [] if isinstance(node, ast.Try) else [node]


def _is_text(node: ast.stmt) -> bool:
    """A docstring or any other bare string: a comment, as far as the code is concerned."""
    return isinstance(node, ast.Expr) and isinstance(node.value, (ast.Constant, ast.JoinedStr)) and \
        (isinstance(node.value, ast.JoinedStr) or isinstance(node.value.value, str))


def _flatten(node: ast.AST, parent: int, into: list[tuple[ast.AST, int]]) -> None:
    """Every statement under `node` (itself first), in source order, with the index of its enclosing one."""
    if isinstance(node, ast.stmt) and _is_text(node):
        return
    index = len(into)
    into.append((node, parent))
    for block in ("body", "handlers", "orelse", "finalbody"):
        for child in getattr(node, block, None) or ():
            if isinstance(child, (ast.stmt, ast.ExceptHandler)):
                _flatten(child, index, into)


def _lines(node: ast.AST) -> tuple[int, int]:
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())])
    body = getattr(node, "body", None)
    if isinstance(node, COMPOUND + (ast.ExceptHandler,)) and body:
        return first, max(node.lineno, body[0].lineno - 1)
    return first, node.end_lineno or node.lineno


def _source(stmt: ast.AST, lines: list[str]) -> tuple:
    """What fixes a statement's header as written: its type, its lines (from its first decorator to where
    its body starts, or to its end) and where in them it starts and ends. Two statements with the same
    source and the same names around them normalise alike."""
    first = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", ())])
    body = getattr(stmt, "body", None)
    if isinstance(stmt, COMPOUND + (ast.ExceptHandler,)) and body:
        last, end = body[0].lineno, (body[0].lineno - first, body[0].col_offset)
    else:
        last, end = stmt.end_lineno or stmt.lineno, (stmt.end_col_offset,)
    return (type(stmt).__name__, "\n".join(lines[first - 1:last]), stmt.lineno - first, stmt.col_offset, *end)


def words_in(text: str, cache: dict) -> frozenset[str]:
    """The identifiers in `text`, kept in `cache` (many students' statements and segments are the same text)."""
    key = ("words", text)
    if key not in cache:
        cache[key] = frozenset(WORD.findall(text))
    return cache[key]


def normalise(node: ast.stmt, imports: dict[str, str], attributes: frozenset[str], lines: list[str] | None = None,
              cache: dict | None = None) -> tuple[frozenset[str], list]:
    """The names a top-level statement reads and does not bind, and (first line, last line, weight, h0,
    h1) of each of its statements; rewrites `node`. With its file's `lines` (split at "\n", as the parser
    counts them), each statement's survey and text are kept in `cache` by its source (_source) and how
    the names in it are bound: most statements of a class are written by many students."""
    flat: list[tuple[ast.AST, int]] = []
    _flatten(node, -1, flat)
    cache = cache if cache is not None and lines is not None else {}
    sources = [_source(stmt, lines) if lines is not None else (i,) for i, (stmt, _) in enumerate(flat)]
    words = [words_in(source[1], cache) if lines is not None else frozenset() for source in sources]
    surveys, nodes = [], {}
    for i, (stmt, _) in enumerate(flat):
        key = ("survey", sources[i], attributes & words[i])
        if key not in cache:
            *survey, nodes[i] = _survey(stmt, attributes)
            cache[key] = tuple(survey)
        surveys.append(cache[key])
    bound, read = set().union(*(s[2] for s in surveys)), set().union(*(s[3] for s in surveys))
    local = dict(imports)
    for survey in surveys:
        local.update(survey[4])
    shadowed = bound - set(local)
    texts, found, last = [], [], {}
    for i, ((stmt, parent), (reads, writes, *_)) in enumerate(zip(flat, surveys)):
        key = ("text", sources[i], tuple((w, local.get(w), w in shadowed, w in bound, w in attributes)
                                         for w in sorted(words[i])))
        if key not in cache:
            _abstract(nodes[i] if i in nodes else _survey(stmt, attributes)[-1], local, attributes, bound)
            text = _header(stmt)
            cache[key] = (text, min(len(TOKEN.findall(text)), MAX_WEIGHT), digest(text))
        text, weight, h0 = cache[key]
        texts.append(text)
        deps = sorted({texts[last[k]] for k in reads if k in last} | ({texts[parent]} if parent >= 0 else set()))
        last.update(dict.fromkeys(writes, i))
        found.append((*_lines(stmt), weight, h0, digest("\0".join([text, *deps]))))
    return frozenset(read - bound), found
