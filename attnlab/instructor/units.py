"""What is compared per exercise: the code of a submission that the exercise's run_* reaches.

A submission's unit for an exercise is its run_* (in the spec's module, else wherever the package
defines it) with every top-level function, class and assignment it uses, followed through the
package's own imports (`from .multihead import MultiHeadAttention`), plus the file's code that no run_*
uses (dead helpers are still the student's code). A top-level statement identical to the template's is
left out (an untouched stub is no code), and so, later, are fingerprints of anything in the template.
A known source (a public repository, last year's solutions) is one unit per file: all of its code.
"""

import functools
import multiprocessing
from dataclasses import dataclass

from attnlab.core.cpus import usable_cpus
from attnlab.instructor.fingerprints import Segment, Statement, defined_attributes
from attnlab.instructor.segments import file_segments


@dataclass(frozen=True)
class Unit:
    """One submission's code for one exercise: its statements, in file and line order."""

    path: str  # the file of its run_* (for a known source: the file)
    statements: tuple[Statement, ...]

    @functools.cached_property  # read several times per unit when a class is scored: made once (not a field)
    def _features(self) -> dict[int, int]:
        found: dict[int, int] = {}
        for s in self.statements:
            for h in (s.h0, s.h1):
                found[h] = max(found.get(h, 0), s.weight)
        return found

    def features(self) -> dict[int, int]:
        """Fingerprint -> weight (a fingerprint several statements share counts once, at its largest)."""
        return self._features


@dataclass
class Package:
    """A submission's files cut into segments: module name -> top-level name -> segment."""

    modules: dict[str, dict[str, Segment]]
    siblings: dict[str, dict[str, tuple[str, str]]]  # module -> imported name -> (module, name)
    loose: dict[str, list[Segment]]  # module -> segments binding no name (top-level code)
    unreadable: list[str]  # files that do not parse


def read_package(files: dict[str, str], cache: dict, template: "Package | None" = None) -> Package:
    """Every .py file of a submission (path -> text), cut into segments; segments whose text is the
    template's (same module, same name) are left out."""
    attributes = defined_attributes(files.values())
    package = Package({}, {}, {}, [])
    for path in sorted(files):
        module = path[:-3].replace("/", ".") if path.endswith(".py") else path
        given = template.modules.get(module.rsplit(".", 1)[-1], {}) if template else {}
        try:
            segments, siblings = file_segments(path, files[path], attributes, cache,
                                               {name: segment.text for name, segment in given.items()})
        except (SyntaxError, ValueError, RecursionError):
            package.unreadable.append(path)
            continue
        named = package.modules.setdefault(module, {})
        for segment in segments:
            for name in segment.names:
                named[name] = segment
            if not segment.names:
                package.loose.setdefault(module, []).append(segment)
        package.siblings[module] = siblings
    return package


def _where(package: Package, module: str, function: str) -> str | None:
    if function in package.modules.get(module, {}):
        return module
    return next((m for m in sorted(package.modules) if function in package.modules[m]), None)


def reached(package: Package, module: str, name: str) -> list[Segment]:
    """The segment binding `name` in `module` and every segment it uses, through sibling imports."""
    todo, seen, found = [(module, name)], set(), []
    while todo:
        module, name = todo.pop()
        segment = package.modules.get(module, {}).get(name)
        if segment is None and name in package.siblings.get(module, {}):
            todo.append(package.siblings[module][name])
            continue
        if segment is None or id(segment) in seen:
            continue
        seen.add(id(segment))
        found.append(segment)
        todo += [(module, used) for used in sorted(segment.uses)]
    return found


def exercise_units(package: Package, functions: dict[str, tuple[str, str]]) -> dict[str, Unit]:
    """Exercise id -> its unit, for the exercises (id -> (module, run_* name)) the package has code for."""
    homes = {eid: (m, f) for eid, (module, f) in functions.items() if (m := _where(package, module, f))}
    closures = {eid: reached(package, m, f) for eid, (m, f) in homes.items()}
    used = {id(s) for segments in closures.values() for s in segments}
    units = {}
    for eid, segments in closures.items():
        module = homes[eid][0]
        unused = [s for s in package.modules[module].values() if id(s) not in used]
        extra = list({id(s): s for s in unused + package.loose.get(module, [])}.values())
        statements = sorted((st for s in segments + extra for st in s.statements), key=lambda s: (s.path, s.first))
        if statements:
            units[eid] = Unit(segments[0].path, tuple(statements))
    return units


def known_units(files: dict[str, str], cache: dict) -> dict[str, Unit]:
    """A known source's files: path -> all of its code as one unit."""
    units = {}
    for path in sorted(files):
        package = read_package({path: files[path]}, cache)
        segments = {id(s): s for named in package.modules.values() for s in named.values()}
        segments.update({id(s): s for loose in package.loose.values() for s in loose})
        statements = sorted((st for s in segments.values() for st in s.statements), key=lambda s: s.first)
        if statements:
            units[path] = Unit(path, tuple(statements))
    return units


PARALLEL_FROM = 200  # submissions: below this, starting worker processes costs more than it saves
_SHARED: dict = {}  # what forked workers read (set just before forking: never pickled)


def _units_of(names: list[str]) -> list[tuple[str, dict[str, Unit]]]:
    submissions, template, functions, cache = (_SHARED[k] for k in ("submissions", "template", "functions", "cache"))
    return [(name, exercise_units(read_package(submissions[name], cache, template), functions)) for name in names]


def all_units(submissions: dict[str, dict[str, str]], functions: dict[str, tuple[str, str]], template: Package,
              cache: dict) -> dict[str, dict[str, Unit]]:
    """Submission name -> exercise id -> unit. Fingerprinting is pure Python and each submission is
    independent: a large class is spread over the machine's cores (forked workers; same result)."""
    names = sorted(submissions)
    workers = min(usable_cpus(), 16)
    _SHARED.update(submissions=submissions, template=template, functions=functions, cache=cache)
    try:
        if workers < 2 or len(names) < PARALLEL_FROM or "fork" not in multiprocessing.get_all_start_methods():
            return dict(_units_of(names))
        chunks = [names[i::workers * 4] for i in range(workers * 4)]
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            return dict(sorted(item for chunk in pool.map(_units_of, chunks) for item in chunk))
    finally:
        _SHARED.clear()
