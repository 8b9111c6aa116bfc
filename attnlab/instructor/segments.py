"""A file cut into its top-level segments, each fingerprinted (attnlab.instructor.fingerprints) once per
text and names it sees: a class of thousands shares most of its code."""

import ast

from attnlab.instructor.fingerprints import Segment, Statement, _is_text, imported_names, normalise, words_in


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
        words = words_in(segment_text, cache)
        key = (segment_text, tuple(sorted((k, v) for k, v in imports.items() if k in words)),
               tuple(sorted(attributes & words)))
        if key not in cache:
            uses, statements = normalise(node, imports, attributes, None if "\r" in text else text.split("\n"), cache)
            cache[key] = (_bound_at_top(node), uses, tuple((a - first, b - first, *rest) for a, b, *rest in statements))
        names, uses, relative = cache[key]
        statements = tuple(Statement(path, a + first, b + first, *rest) for a, b, *rest in relative)
        found.append(Segment(names, path, segment_text, uses, statements))
    return found, siblings
