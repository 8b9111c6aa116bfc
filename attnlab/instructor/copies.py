"""Disguised copies of a submission, as a student hiding a copy makes them: for testing similarity
detection against what it must find.

Three kinds (KINDS), each applied to every .py file of a package, with one renaming per package:
  - "renamed": every name the student chose (variables, helpers, classes, their parameters, attributes
    set on self, methods) renamed; run_* names and parameters, keyword names, dunders and forward stay;
  - "restyled": renamed, then independent neighbouring statements swapped, the code reformatted
    (ast.unparse), every docstring rewritten and new comments added;
  - "dead_code": renamed, then unused statements added to every function and an unused helper to
    every module.
The result still parses; the same seed makes the same copy.
"""

import ast
import io
import random
import tokenize
from pathlib import Path

KINDS = ("renamed", "restyled", "dead_code")
KEPT = frozenset({"self", "cls", "forward", "super", "weight", "bias", "data", "training", "T", "shape", "dtype",
                  "device"})
WORDS = ("nimbus", "quill", "ember", "sprout", "atlas", "pebble", "lumen", "cobalt", "fjord", "tundra", "zephyr")
COMMENTS = ("# shape bookkeeping", "# see the notes", "# TODO tidy up", "# main computation here",
            "# works for any batch size", "# careful with the axes")


def _chosen_names(texts: list[str]) -> tuple[set[str], set[str]]:
    """Names the student chose in these modules that can be renamed without changing what the code does,
    and which of them are attributes set on self."""
    names, attributes, keywords, runs = set(), set(), set(), set()
    for text in texts:
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                run = node.name.startswith("run_")
                (runs if run else names).add(node.name)
                (attributes if isinstance(node, ast.FunctionDef) and not run else set()).add(node.name)
                if isinstance(node, ast.FunctionDef):
                    (runs if run else names).update(a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg))
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and \
                    isinstance(node.value, ast.Name) and node.value.id == "self":
                attributes.add(node.attr)
            elif isinstance(node, ast.keyword) and node.arg:
                keywords.add(node.arg)
    chosen = {n for n in names | attributes if not n.startswith("__") and n.isidentifier()} - keywords - runs - KEPT
    return chosen, attributes & chosen


def renaming(texts: list[str], rng: random.Random) -> tuple[dict[str, str], frozenset[str]]:
    """Old name -> new name, and the names that are attributes (renamed after a dot too)."""
    chosen, attributes = _chosen_names(texts)
    ordered = sorted(chosen)
    mapping = {old: f"{rng.choice(WORDS)}_{i}" for i, old in enumerate(rng.sample(ordered, len(ordered)))}
    return mapping, frozenset(attributes)


def rename(text: str, mapping: dict[str, str], attributes: frozenset[str]) -> str:
    """Every NAME token in `mapping` renamed (after a dot only the student's own attributes); comments
    dropped."""
    out, previous = [], ""
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.NAME and tok.string in mapping and (previous != "." or tok.string in attributes):
            tok = tok._replace(string=mapping[tok.string])
        elif tok.type == tokenize.COMMENT:
            tok = tok._replace(string="")
        previous = tok.string if tok.type not in (tokenize.NL, tokenize.COMMENT) else previous
        out.append(tok)
    return tokenize.untokenize(out)


def _keys(node: ast.AST) -> tuple[set[str], set[str]]:
    reads, writes = set(), set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            (writes if isinstance(sub.ctx, ast.Store) else reads).add(sub.id)
        elif isinstance(sub, ast.Attribute):
            (writes if isinstance(sub.ctx, ast.Store) else reads).add("." + sub.attr)
    return reads, writes


def _independent(first: ast.stmt, second: ast.stmt) -> bool:
    if not all(isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)) for s in (first, second)):
        return False  # calls for their effect, returns and control flow keep their place
    (r1, w1), (r2, w2) = _keys(first), _keys(second)
    return not (w1 & (r2 | w2) or w2 & r1)


def reorder(tree: ast.AST, rng: random.Random) -> None:
    """Swap neighbouring independent statements in every block, about half of the time."""
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        i = 0
        while i + 1 < len(body):
            if _independent(body[i], body[i + 1]) and rng.random() < 0.7:
                body[i], body[i + 1] = body[i + 1], body[i]
                i += 2
            else:
                i += 1


def _docstrings(tree: ast.AST, rng: random.Random) -> None:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and \
                isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            body[0].value.value = f"My {rng.choice(WORDS)} implementation."


def _comments(text: str, rng: random.Random) -> str:
    lines = text.splitlines(keepends=True)
    out = []
    for line in lines:
        stripped = line.lstrip()
        continuation = stripped.startswith(("@", "else", "elif", "except", "finally", ")", "]"))
        if stripped and not continuation and rng.random() < 0.3:
            out.append(line[:len(line) - len(stripped)] + rng.choice(COMMENTS) + "\n")
        out.append(line)
    return "".join(out)


DEAD_STATEMENTS = (
    "{w} = [{n}] * {m}\nif len({w}) < 0:\n    print('{w}')",
    "{w} = {{'step': {n}, 'scale': {m}.0}}",
    "for {w} in range({n}, {n}):\n    pass",
    "{w} = str({n}) + '{w}'\n{w} = {w}.upper()",
    "if {n} > {m} * 100:\n    {w} = None",
    "{w} = ({n}, {m}, {n} + {m})",
)


def _stub(function: ast.FunctionDef) -> bool:
    """A function left as the template gave it (it raises NotImplementedError): nobody pads that."""
    return any(isinstance(n, ast.Raise) and "NotImplementedError" in ast.unparse(n) for n in function.body)


def add_dead_code(tree: ast.Module, rng: random.Random) -> None:
    """Unused statements in every function (after its first statement) and an unused helper per module,
    each drawn from DEAD_STATEMENTS with its own names and numbers."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.body and not _stub(node):
            form = rng.choice(DEAD_STATEMENTS)
            dead = ast.parse(form.format(w=f"{rng.choice(WORDS)}_{rng.randint(0, 99)}", n=rng.randint(1, 9),
                                         m=rng.randint(2, 9))).body
            at = rng.randint(1, len(node.body)) if not isinstance(node.body[-1], ast.Return) else \
                rng.randint(1, max(1, len(node.body) - 1))
            node.body[at:at] = dead
    helper = f"def _{rng.choice(WORDS)}_check(values):\n    total = {rng.randint(0, 5)}\n" \
             f"    for v in values:\n        total += v * {rng.randint(1, 9)}\n" \
             f"    return total > {rng.randint(1, 99)}\n"
    tree.body.extend(ast.parse(helper).body)


def disguise(text: str, kind: str, mapping: dict[str, str], attributes: frozenset[str], rng: random.Random) -> str:
    """One module's text as a copy of the given kind."""
    renamed = rename(text, mapping, attributes)
    if kind == "renamed":
        return renamed
    tree = ast.parse(renamed)
    if kind == "restyled":
        reorder(tree, rng)
        _docstrings(tree, rng)
        return _comments(ast.unparse(tree) + "\n", rng)
    if kind == "dead_code":
        add_dead_code(tree, rng)
        return ast.unparse(tree) + "\n"
    raise ValueError(f"unknown kind of copy {kind!r}: one of {', '.join(KINDS)}")


def copy_package(source: Path, target: Path, kind: str, seed: int) -> None:
    """Copy a package directory with every .py file disguised (one renaming for the whole package)."""
    rng = random.Random(seed)
    files = sorted(p for p in source.rglob("*") if p.is_file())
    mapping, attributes = renaming([p.read_text(encoding="utf-8") for p in files if p.suffix == ".py"], rng)
    for path in files:
        out = target / path.relative_to(source)
        out.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".py":
            out.write_text(disguise(path.read_text(encoding="utf-8"), kind, mapping, attributes, rng), encoding="utf-8")
        else:
            out.write_bytes(path.read_bytes())


def changed_share(before: str, after: str) -> float:
    """The share of `after`'s code lines not found verbatim in `before` (how disguised a copy is)."""
    def lines(text: str) -> set[str]:
        return {s for line in text.splitlines() if (s := line.strip()) and not s.startswith("#")}

    new = lines(after)
    return len(new - lines(before)) / len(new) if new else 0.0

