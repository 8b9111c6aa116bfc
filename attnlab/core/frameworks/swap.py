"""The forbidden-call guard of frameworks whose calls Python cannot watch operator by operator (NumPy, JAX,
MindSpore): torch has its function mode and ATen tripwires (attnlab.core.forbidden); these have none.

While a guarded call runs, every reference to a forbidden function or class found in the framework's own
modules (public and private: `jax.nn.softmax` and `jax._src.nn.functions.softmax` alike), in the student's
modules and as an attribute of the class that owns it (`mindspore.Tensor.softmax`) is replaced by a stand-in
that records the hit and raises; after the call everything is put back. So `from jax.nn import softmax`,
`import mindspore.ops as O; O.softmax`, `getattr(jax.nn, "soft" + "max")` and `jax.jit(jax.nn.softmax)` are
all caught, and a hit the student catches is still reported, as with torch. Not caught: a reference the
student stashed somewhere other than a module's namespace before the call (a default argument, a closure,
a container), which takes deliberate effort rather than a shortcut a student reaches for by habit.
"""

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

from attnlab.core.calls import FILE_PREFIX, PACKAGE_PREFIX
from attnlab.core.forbidden import resolve
from attnlab.core.outcomes import ForbiddenCall

# how impl.load_package and FileImpl name student code; a notebook's functions live in __main__
STUDENT_MODULES = (PACKAGE_PREFIX, FILE_PREFIX, "__main__")


class SwapGuard:
    def __init__(self, roots: tuple[str, ...]):
        self.roots = roots  # the framework's top-level packages, e.g. ("jax", "jaxlib")
        self._index = _Index()
        self._places: dict[tuple[str, ...], tuple[list[ModuleType], set[int], list]] = {}
        self._sorted: tuple[tuple, list[ModuleType], list[ModuleType]] | None = None

    def prime(self) -> None:
        """Index the framework's modules now: the forkserver does, so that runners inherit the index instead
        of each scanning a thousand modules again (tens of milliseconds per set of forbidden names)."""
        self._index.update(self._framework_modules())

    def _modules(self) -> tuple[list[ModuleType], list[ModuleType]]:
        """The framework's modules and the student's, sorted out of sys.modules again only when it changed:
        with torch and MindSpore imported it holds thousands, and a guard is entered for every call."""
        key = _modules_key()
        if self._sorted is None or self._sorted[0] != key:
            framework, student = [], []
            for name, module in list(sys.modules.items()):
                if isinstance(module, ModuleType):
                    if name.partition(".")[0] in self.roots:
                        framework.append(module)
                    elif name.startswith(STUDENT_MODULES[:2]) or name == "__main__":
                        student.append(module)
            self._sorted = (key, framework, student)
        return self._sorted[1], self._sorted[2]

    def _framework_modules(self) -> list[ModuleType]:
        return self._modules()[0]

    def _student_modules(self) -> list[ModuleType]:
        return self._modules()[1]

    def _targets(self, names: tuple[str, ...]) -> dict[int, tuple[object, str]]:
        """id(object) -> (object, its spec name) of each forbidden name that resolves here. A name of a
        framework not imported yet is skipped (code cannot call what it could not import), as is one this
        version of the framework lacks (tests/unit/test_frameworks.py checks the specs' names resolve)."""
        found = {}
        for name in names:
            if name.split(".")[0] not in sys.modules:
                continue
            try:
                obj = resolve(name)
            except ValueError:
                continue
            found[id(obj)] = (obj, name)
        return found

    def _places_of(self, names: tuple[str, ...], targets: dict[int, tuple[object, str]]):
        """Every (namespace owner, attribute) in the framework's modules that holds a target: looked up again
        whenever sys.modules changed or the names resolve to other objects, in an index brought up to date
        then (a module imported since, or one whose namespace grew: a lazy import binding a name into a
        package, a `__getattr__` caching what it returned)."""
        modules = self._framework_modules()
        known = self._places.get(names)
        if known is None or known[0] is not modules or known[1] != targets.keys():
            self._index.update(modules)
            found = {(id(place[0]), place[1]): place
                     for place in self._index.places(targets, modules) + _owner_places(names, targets)}
            known = self._places[names] = (modules, set(targets), list(found.values()))
        return list(known[2])

    @contextmanager
    def guard(self, exercise: str, names: tuple[str, ...]) -> Iterator[list[str]]:
        targets = self._targets(names) if names else {}
        if not targets:
            yield []
            return
        places = self._places_of(names, targets) + _scan(self._student_modules(), targets)
        hits: list[str] = []
        swapped = []
        try:
            for owner, attr, original, name in places:
                try:
                    setattr(owner, attr, _stand_in(name, original, hits))
                except (AttributeError, TypeError):  # a C type's attribute cannot be set: leave it
                    continue
                swapped.append((owner, attr, original))
            yield hits
        finally:
            for owner, attr, original in reversed(swapped):
                setattr(owner, attr, original)
            if hits:
                raise ForbiddenCall(exercise, hits[0])


class _Index:
    """Where each callable in the framework's modules is bound: id(value) -> [(module, attribute)], whatever
    the forbidden names. A module is indexed when first seen and again when its namespace has changed size,
    adding only the bindings it did not hold before (a module that caches things in its namespace would
    otherwise add every binding again each time); an entry whose attribute has since been rebound is dropped
    when looked up."""

    def __init__(self):
        self.where: dict[int, list[tuple[ModuleType, str]]] = {}
        # id(module) -> (module, namespace size indexed, attribute -> id of the callable indexed there)
        self.seen: dict[int, tuple[ModuleType, int, dict[str, int]]] = {}

    def update(self, modules: list[ModuleType]) -> None:
        for module in modules:
            try:
                namespace = vars(module)
            except TypeError:
                continue
            seen = self.seen.get(id(module))
            if seen is not None and seen[0] is module and seen[1] == len(namespace):
                continue
            held = seen[2] if seen is not None and seen[0] is module else {}
            for attr, value in list(namespace.items()):
                if callable(value) and held.get(attr) != id(value):
                    held[attr] = id(value)
                    self.where.setdefault(id(value), []).append((module, attr))
            self.seen[id(module)] = (module, len(namespace), held)

    def places(self, targets: dict[int, tuple[object, str]], modules: list[ModuleType]) -> list:
        """(module, attribute, value, name) of every binding of a target; one that is not callable (the index
        holds only callables) is searched for module by module."""
        uncalled = {key: target for key, target in targets.items() if not callable(target[0])}
        found = {(id(place[0]), place[1]): place for place in (_scan(modules, uncalled) if uncalled else ())}
        for key, (obj, name) in targets.items():
            for module, attr in self.where.get(key, ()):
                if vars(module).get(attr) is obj:
                    found[(id(module), attr)] = (module, attr, obj, name)
        return list(found.values())


def _owner_places(names: tuple[str, ...], targets: dict[int, tuple[object, str]]) -> list:
    """Each name's own place, whatever the index holds: the class owning a method or class attribute
    (`mindspore.Tensor.softmax`), or the module of a function (`mindspore.ops.softmax`, also when the module
    rebound it in place since it was indexed, as a lazy placeholder replacing itself does)."""
    places = []
    for name in names:
        if name.split(".")[0] in sys.modules and "." in name:
            owner_path, attr = name.rsplit(".", 1)
            try:
                owner = resolve(owner_path)
            except ValueError:
                continue
            if isinstance(owner, (type, ModuleType)) and id(getattr(owner, attr, None)) in targets:
                places.append((owner, attr, getattr(owner, attr), name))
    return places


def _modules_key() -> tuple:
    """What changes whenever sys.modules does: an import adds its module at the end (dict order), and one
    removed and imported again comes back as a new object there."""
    if not sys.modules:
        return (0,)
    last = next(reversed(sys.modules))
    return len(sys.modules), last, id(sys.modules[last])


def _scan(modules: list[ModuleType], targets: dict[int, tuple[object, str]]):
    places = []
    for module in modules:
        try:
            items = list(vars(module).items())
        except TypeError:
            continue
        for attr, value in items:
            hit = targets.get(id(value))
            if hit is not None and hit[0] is value:
                places.append((module, attr, value, hit[1]))
    return places


def _stand_in(name: str, original: object, hits: list[str]):
    def forbidden(*args, **kwargs):
        hits.append(name)
        raise RuntimeError(f"forbidden call: {name}")

    forbidden.__name__ = getattr(original, "__name__", name.rsplit(".", 1)[-1])
    forbidden.__qualname__ = forbidden.__name__
    return forbidden
