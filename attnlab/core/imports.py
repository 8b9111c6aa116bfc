"""Which packages student code may import: the standard library, the course's framework and the libraries
course.yaml lists (`libraries:`), nothing else, the same on a student's machine and in the grader.

An import made from a module of a registered student package (by its unique name, attnlab_impl_...) of a
top-level name outside that set fails with NotInCourse, which the checks report once and plainly ("scipy
is not available in this course") instead of as a traceback per exercise. It is checked in `__import__`,
which sees the importing module even when the imported one is already loaded, and in a meta path finder
for importlib calls. Imports made by libraries themselves (torch importing sympy, einx importing numpy)
are not affected: only the importing module decides.
"""

import builtins
import importlib.abc
import os
import sys
import threading
from types import FrameType

from attnlab.core.outcomes import exception_chain

ALWAYS = ("jaxtyping",)  # the stubs' own annotations; the framework's own packages come with its adapter
_IMPORT_MACHINERY = ("<frozen importlib", os.path.dirname(importlib.__file__))


def course_offers(adapter, libraries: tuple[str, ...]) -> tuple[str, ...]:
    """What student code may import besides the standard library: the framework's packages (its adapter's
    `imports`) and the course's libraries. The one list Run.offered, the runner and InProcessImpl pass on."""
    return (*adapter.imports, *libraries)


def offered(top: str, libraries: tuple[str, ...] | frozenset[str]) -> bool:
    """Whether student code may import the top-level module `top` where the course offers `libraries` (its own
    and its framework's): the standard library and jaxtyping always."""
    return top in libraries or top in ALWAYS or top in sys.stdlib_module_names or top in sys.builtin_module_names


class NotInCourse(ModuleNotFoundError):
    def __init__(self, package: str, file: str, offered: tuple[str, ...], fullname: str | None = None):
        super().__init__(f"{package} is not available in this course (imported in {os.path.basename(file)})",
                         name=package)
        self.package, self.file, self.offered = package, os.path.basename(file), offered
        # `from softmax import ...` or `from attention.softmax import ...` in attention/attention.py: the
        # student's own module by a bare name (what works when a file is run as a script), not a library;
        # `relative` is how the package itself spells it
        folder, fullname = os.path.dirname(file), fullname or package
        self.relative = None
        if folder and os.path.basename(folder) == package:
            self.relative = "." + fullname[len(package) + 1:]
        elif folder and (os.path.isfile(os.path.join(folder, f"{package}.py"))
                         or os.path.isfile(os.path.join(folder, package, "__init__.py"))):
            self.relative = "." + fullname

    def message(self) -> tuple[str, dict]:
        """The feedback's key and values (a Message's): a library the course does not offer, or the
        student's own module imported by a bare name."""
        if self.relative is not None:
            return "own_module_by_name", {"package": self.package, "file": self.file, "relative": self.relative}
        return "library_not_in_course", {"package": self.package, "file": self.file, "offered": ", ".join(self.offered)}


class CourseImports(importlib.abc.MetaPathFinder):
    """The meta path finder that enforces the course's import list for registered student packages."""

    def __init__(self):
        # student package name -> (top-level names it may import, the packages the course offers)
        self.packages: dict[str, tuple[frozenset[str], tuple[str, ...]]] = {}
        self._lock = threading.Lock()

    def register(self, package_name: str, libraries: tuple[str, ...]) -> None:
        with self._lock:
            self.packages[package_name] = (frozenset({*ALWAYS, *libraries, package_name}), (*ALWAYS, *libraries))

    def check(self, fullname: str, module: str, filename: str) -> None:
        """Raise NotInCourse if `module` (the importer) belongs to a student package that may not import it."""
        rules = self.packages.get(module.partition(".")[0])
        top = fullname.partition(".")[0]
        if rules is not None and top not in rules[0] and not offered(top, ()):
            raise NotInCourse(top, filename, rules[1], fullname)

    def find_spec(self, fullname, path=None, target=None):
        if self.packages:
            importer = _importer(sys._getframe(1))
            if importer is not None:
                self.check(fullname, *importer)
        return None


def _importer(frame: FrameType | None) -> tuple[str, str] | None:
    """(module name, file) of the first frame outside the import machinery: the code asking for the import."""
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(_IMPORT_MACHINERY):
            return str(frame.f_globals.get("__name__", "")), filename
        frame = frame.f_back
    return None


FINDER = CourseImports()
_builtin_import = builtins.__import__


def _import(name, globals=None, locals=None, fromlist=(), level=0):
    if level == 0 and globals and FINDER.packages:
        FINDER.check(name, str(globals.get("__name__", "")), str(globals.get("__file__", "")))
    return _builtin_import(name, globals, locals, fromlist, level)


def enforce(package_name: str, libraries: tuple[str, ...]) -> None:
    """From now on, imports made from the modules of `package_name` may only name the course's packages."""
    if FINDER not in sys.meta_path:
        sys.meta_path.insert(0, FINDER)
        builtins.__import__ = _import
    FINDER.register(package_name, libraries)


def may_import(top: str) -> bool:
    """Whether student code in this process may import the top-level package `top`: no student package is
    held to a course's list (the mutation corpus, a notebook), or one of them may import it."""
    with FINDER._lock:
        rules = list(FINDER.packages.values())
    return not rules or any(top in allowed for allowed, _ in rules)


def not_in_course(exc: BaseException | None) -> NotInCourse | None:
    """The NotInCourse behind `exc` (raised directly or as its cause), if any."""
    return next((e for e in exception_chain(exc) if isinstance(e, NotInCourse)), None)
