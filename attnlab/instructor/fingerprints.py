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
machine and run. A segment's result is cached by its text and the names it sees: a class of thousands
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


def _survey(stmt: ast.AST, attributes: frozenset[str], seen: dict) -> tuple[set[str], set[str]]:
    """One walk over a statement's header: what it reads and writes (names, and `.attr` of the
    submission's attributes); adds its nodes, the names it binds (stores, parameters, defs, imports,
    except and global names) and reads, and its imports to `seen`."""
    reads, writes = set(), set()
    nodes, bound, read, imports = seen["nodes"], seen["bound"], seen["read"], seen["imports"]
    nodes.append(stmt)
    for part in _header_parts(stmt):
        for sub in ast.walk(part):
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
    return reads, writes


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


def normalise(node: ast.stmt, imports: dict[str, str], attributes: frozenset[str]) -> tuple[frozenset[str], list]:
    """The names a top-level statement reads and does not bind, and (first line, last line, weight, h0,
    h1) of each of its statements; rewrites `node`."""
    flat: list[tuple[ast.AST, int]] = []
    _flatten(node, -1, flat)
    seen: dict = {"nodes": [], "bound": set(), "read": set(), "imports": []}
    keys = [(*_survey(stmt, attributes, seen), _lines(stmt)) for stmt, _ in flat]
    bound, read = seen["bound"], seen["read"]
    _abstract(seen["nodes"], {**imports, **imported_names(seen["imports"])}, attributes, bound)
    texts = [_header(stmt) for stmt, _ in flat]
    last: dict[str, int] = {}
    found = []
    for i, ((_, parent), (reads, writes, (first, end))) in enumerate(zip(flat, keys)):
        deps = sorted({texts[last[k]] for k in reads if k in last} | ({texts[parent]} if parent >= 0 else set()))
        last.update(dict.fromkeys(writes, i))
        weight = min(len(TOKEN.findall(texts[i])), MAX_WEIGHT)
        found.append((first, end, weight, digest(texts[i]), digest("\0".join([texts[i], *deps]))))
    return frozenset(read - bound), found


def _bound_at_top(node: ast.stmt) -> tuple[str, ...]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return (node.name,)
    targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
    return tuple(t.id for t in targets if isinstance(t, ast.Name))


def file_segments(path: str, text: str, attributes: frozenset[str], cache: dict,
                  given: dict[str, str] | None = None) -> tuple[list[Segment], dict]:
    """The top-level segments of a file (imports left out, and those whose text is `given`: name -> text
    of the template's) and its imports of sibling modules (name -> (module, name)). Raises SyntaxError
    or ValueError (a NUL byte) for code that does not parse."""
    for given_text in sorted(set((given or {}).values())):
        if given_text in text:  # blanked before parsing (most of a file is the template's, untouched)
            text = text.replace(given_text, "\n" * given_text.count("\n"), 1)
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    imports = imported_names(tree.body)
    siblings, found = {}, []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            siblings.update({a.asname or a.name: (node.module, a.name) for a in node.names})
        if isinstance(node, (ast.Import, ast.ImportFrom)) or _is_text(node):
            continue
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())])
        segment_text = "".join(lines[first - 1:node.end_lineno])
        names = _bound_at_top(node)
        if given and names and all(given.get(n) == segment_text for n in names):
            continue  # the template's own code, untouched
        words = set(WORD.findall(segment_text))
        key = (segment_text, tuple(sorted((k, v) for k, v in imports.items() if k in words)),
               tuple(sorted(attributes & words)))
        if key not in cache:
            uses, statements = normalise(node, imports, attributes)
            cache[key] = (_bound_at_top(node), uses, tuple((a - first, b - first, *rest) for a, b, *rest in statements))
        names, uses, relative = cache[key]
        statements = tuple(Statement(path, a + first, b + first, *rest) for a, b, *rest in relative)
        found.append(Segment(names, path, segment_text, uses, statements))
    return found, siblings
