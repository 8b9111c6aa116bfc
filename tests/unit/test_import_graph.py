"""attnlab's modules import one another without a cycle, and each imports alone.

The graph is read from the source (ast), so an import hidden in a function or under TYPE_CHECKING counts as
much as one at the top: a function-local import may defer a heavy library (torch, jax) but not hide a cycle.
Modules imported by name at run time count too: the framework adapters (attnlab.core.frameworks.MODULES)
and the catalogue's areas. attnlab/instructor/release_files/ holds files shipped to Gradescope, not modules
of the package.
"""

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from attnlab.core.frameworks import MODULES

PACKAGE = Path(__file__).resolve().parents[2] / "attnlab"
NOT_MODULES = ("instructor/release_files/",)
OPTIONAL = ("jax", "mindspore")  # frameworks a module may need that this environment may lack


def module_files(package: Path = PACKAGE) -> dict[str, Path]:
    """Dotted module name -> its file, for every module of the package."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package.parent)
        if any(part in relative.as_posix() for part in NOT_MODULES):
            continue
        parts = relative.with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _known(name: str, modules: dict) -> str | None:
    """`name`, or the longest of its prefixes that is a module (`a.b.f`, f a function of a.b: a.b)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _imported(node: ast.AST, here: str, is_package: bool, modules: dict) -> list[str]:
    if isinstance(node, ast.Import):
        return [_known(alias.name, modules) for alias in node.names]
    if node.level:  # relative: from the package this module is in (or is)
        anchor = here.split(".")
        anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
        base = ".".join([*anchor, *([node.module] if node.module else [])])
    else:
        base = node.module or ""
    return [_known(f"{base}.{alias.name}", modules) for alias in node.names]


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Module -> the package's modules it imports, anywhere in its code."""
    modules = module_files(package)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                graph[name] |= {target for target in _imported(node, name, path.name == "__init__.py", modules)
                                if target and target != name}
    return graph


def attnlab_graph() -> dict[str, set[str]]:
    """attnlab's import graph, with the modules it imports by name at run time."""
    graph = import_graph()
    graph["attnlab.core.frameworks"] |= {f"attnlab.core.frameworks.{module}" for module in MODULES.values()}
    graph["attnlab.core.catalogue"] |= {name for name in graph if name.startswith("attnlab.core.catalogue.")}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle (a, b, ..., a) through each strongly connected set of modules (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            members = {stack.pop()}
            while node not in members:
                members.add(stack.pop())
            if len(members) > 1:
                found.append(_cycle_within(node, members, graph))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _cycle_within(start: str, members: set[str], graph: dict[str, set[str]]) -> list[str]:
    """The shortest path from `start` back to itself inside `members` (breadth first)."""
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(graph[node] & members):
                if target == start:
                    return [*paths[node], start]
                if target not in paths:
                    paths[target] = [*paths[node], target]
                    following.append(target)
        frontier = following
    raise AssertionError(f"no cycle through {start} in {sorted(members)}")


def test_the_module_graph_finds_a_cycle_and_follows_every_kind_of_import(tmp_path):
    """The graph sees what the package test relies on: a cycle closed by a function-local import, by a
    TYPE_CHECKING import, by a relative import; a function imported from a module is an edge to the module."""
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg.sub import b\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "b.py").write_text("def f():\n    from pkg.sub.c import g\n")
    (package / "sub" / "c.py").write_text("from typing import TYPE_CHECKING\n"
                                          "if TYPE_CHECKING:\n    from ..a import x\n")
    (package / "d.py").write_text("import pkg.a\n")
    graph = import_graph(package)
    assert graph["pkg.sub.b"] == {"pkg.sub.c"} and graph["pkg.sub.c"] == {"pkg.a"} and graph["pkg.d"] == {"pkg.a"}
    assert cycles(graph) == [["pkg.a", "pkg.sub.b", "pkg.sub.c", "pkg.a"]]


def test_no_import_cycle_between_attnlab_modules():
    graph = attnlab_graph()
    assert "attnlab.core.frameworks.for_torch" in graph["attnlab.core.frameworks"]  # the registry is an edge
    found = cycles(graph)
    assert not found, "import cycles (a function-local import does not break one):\n" + "\n".join(
        " -> ".join(cycle) for cycle in found)


# In one interpreter: torch stays imported, every attnlab module is forgotten before the next is imported.
IMPORT_EACH_ALONE = """
import importlib, json, sys, traceback
import torch  # noqa: F401 -- loaded once: importing a module alone then costs only attnlab's own code
failed, skipped = {}, {}
for name in json.loads(sys.argv[1]):
    for loaded in [m for m in sys.modules if m == "attnlab" or m.startswith("attnlab.")]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] in json.loads(sys.argv[2]):
            skipped[name] = exc.name
        else:
            failed[name] = traceback.format_exc(limit=-3)
    except BaseException:
        failed[name] = traceback.format_exc(limit=-3)
print(json.dumps({"failed": failed, "skipped": skipped}))
"""


@pytest.mark.slow
def test_each_module_imports_alone():
    """A module that works only once another has been imported first (an import order the package
    happens to have) fails here, with its traceback."""
    names = sorted(attnlab_graph())
    env = {**os.environ, "PYTHONPATH": str(PACKAGE.parent)}
    done = subprocess.run([sys.executable, "-c", IMPORT_EACH_ALONE, json.dumps(names), json.dumps(OPTIONAL)],
                          capture_output=True, text=True, timeout=300, env=env, cwd=PACKAGE.parent)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert not result["failed"], "modules that do not import alone:\n" + "\n".join(
        f"{name}:\n{trace}" for name, trace in result["failed"].items())
    assert len(result["skipped"]) < len(names) // 4, result["skipped"]  # only those of a missing framework
