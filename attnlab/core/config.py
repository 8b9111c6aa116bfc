"""How one run is configured, declared once: the options every front end offers, the limits, and the frozen
`Run` each entry point resolves once and passes down.

    parser = argparse.ArgumentParser(); add_arguments(parser)     # grade.py, attnlab, release, mutants
    add_pytest_options(parser)                                     # the pytest plugin (options and ini keys)
    run = resolve(assignment=..., framework=..., device=..., lang=...)   # a usage error is a ValueError
    run.course, run.adapter, run.limits, run.lang, run.seed

Nothing below an entry point reads a flag or looks a framework up by name: it receives the Run (or the
adapter and limits from it). Where the settings come from is drawn in docs/architecture.md.
"""

import argparse
import dataclasses
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from attnlab.core import frameworks, imports, paths
from attnlab.core.i18n import LANGS, default_lang
from attnlab.core.spec import Course
from attnlab.core.spec_load import assignment_framework, load_course

if TYPE_CHECKING:  # base imports torch: grade.py resolves the framework's name before the runner server starts
    from attnlab.core.frameworks.base import Adapter

EXERCISE_CPU_S = 60.0  # CPU seconds of the student's code per exercise in torch; other frameworks: cpu_factor


# -- limits ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Limits:
    """What one exercise and one runner may use. Times in seconds, sizes in MB unless the name says otherwise.
    The student's in-process checks use timeout_s and backstop(); grade.py's runners all of it."""

    timeout_s: float = EXERCISE_CPU_S  # per-exercise budget of CPU time (all its checks together)
    # RLIMIT_AS of a runner; `import torch` alone needs ~700 MB of address space. None: no cap, as on a GPU,
    # where the CUDA context reserves tens of GB of address space it never uses (with 4096 MB, CUDA's
    # initialisation fails with "out of memory"); the case budgets (max_tensor_mb) still hold there
    memory_mb: int | None = 4096
    max_processes: int = 64  # RLIMIT_NPROC (threads count too)
    max_output_bytes: int = 4096  # captured stdout+stderr kept (the tail) for feedback
    max_file_mb: int = 64  # RLIMIT_FSIZE: largest file the runner may write
    max_open_files: int = 512  # RLIMIT_NOFILE
    max_reply_mb: int = 1024  # largest reply payload read back from the runner
    boot_timeout_s: float = 120.0  # runner start-up (python + torch import): the harness's time, wall clock
    import_timeout_s: float = 20.0  # importing the submission package: CPU time, like timeout_s
    wall_factor: float = 3.0  # the wall-clock backstop of a CPU budget B is B * wall_factor + wall_extra_s
    wall_extra_s: float = 10.0
    # where and how a grading runner is confined (attnlab.grade.sandbox.launch validates these two)
    uid: int = 65534  # runner user when started as root (give parallel graders distinct uids)
    gid: int = 65534
    isolation: str = "auto"  # or an isolation level's value, to force a weaker level (tests, debugging)
    launcher: str = "auto"  # or one of attnlab.grade.sandbox.launch.LAUNCHERS (tests, debugging)
    cpu: int | None = None  # run on this CPU only (grade.py puts each worker and its runners on one CPU)

    def __post_init__(self):
        for name in ("timeout_s", "memory_mb", "max_processes", "max_output_bytes", "max_file_mb",
                     "max_open_files", "max_reply_mb", "boot_timeout_s", "import_timeout_s"):
            if name == "memory_mb" and self.memory_mb is None:
                continue
            if not (getattr(self, name) > 0 and math.isfinite(getattr(self, name))):  # inf: a loop never stopped
                raise ValueError(f"Limits.{name} must be a finite positive number, got {getattr(self, name)!r}")
        if self.wall_factor < 1 or self.wall_extra_s < 0:  # code computing flat out must reach its CPU limit first
            raise ValueError(f"Limits.wall_factor must be >= 1 and wall_extra_s >= 0, got {self.wall_factor!r}, "
                             f"{self.wall_extra_s!r}")

    def backstop(self, cpu_s: float) -> float:
        """Wall-clock seconds after which code that has not used up `cpu_s` of CPU time is stopped anyway
        (it waits instead of computing: sleep, input)."""
        return cpu_s * self.wall_factor + self.wall_extra_s

    @classmethod
    def for_adapter(cls, adapter: "Adapter", device: str = "cpu", **given: Any) -> "Limits":
        """The limits of a framework's code on `device`: its CPU budget per exercise (EXERCISE_CPU_S times its
        cpu_factor: JAX compiles every operation per shape) and its runners' address space (none off the CPU),
        unless `given` says otherwise."""
        defaults: dict[str, Any] = {"timeout_s": exercise_cpu_s(adapter)}
        if adapter.memory_mb is not None:
            defaults["memory_mb"] = adapter.memory_mb
        if device != "cpu":
            defaults["memory_mb"] = None
        return cls(**{**defaults, **{k: v for k, v in given.items() if v is not None}})


def exercise_cpu_s(adapter: "Adapter") -> float:
    """The CPU seconds an exercise may take in the adapter's framework."""
    return EXERCISE_CPU_S * adapter.cpu_factor


# -- the options every front end offers -----------------------------------------------------------------
@dataclass(frozen=True)
class Option:
    """One command-line option, as grade.py, attnlab, the release tools and pytest all spell it. `ini`: the
    pytest ini key that gives its default in a project's pyproject.toml (the handout sets them)."""

    name: str
    help: str
    choices: tuple[str, ...] | None = None
    default: str | None = None
    ini: str | None = None

    @property
    def flag(self) -> str:
        return f"--{self.name}"


OPTIONS = {option.name: option for option in (
    Option("assignment", "which assignment of spec/course.yaml (default: the first; pytest: every assignment's "
           "exercises that can be written in the framework)", ini="attnlab_assignment"),
    Option("framework", "what the code is written in (default: the assignment's framework:)",
           choices=frameworks.NAMES, ini="attnlab_framework"),
    Option("device", "where the calls run, e.g. cuda (default cpu; where there is none: 'not run on <device>')",
           default="cpu"),
    Option("lang", "language of every message (default: $ATTNLAB_LANG, else the locale)", choices=LANGS),
)}
RUN_OPTIONS = tuple(OPTIONS)


def add_arguments(parser: argparse.ArgumentParser, names: Iterable[str] = RUN_OPTIONS, *,
                  suppress: bool = False) -> None:
    """Register the options `names` on an argparse parser. suppress: leave unset options out of the namespace
    (a parent parser shared by a command and its subcommands, so either position may give them)."""
    for name in names:
        option = OPTIONS[name]
        default = argparse.SUPPRESS if suppress else option.default
        parser.add_argument(option.flag, default=default, choices=option.choices, help=option.help)


def add_pytest_options(parser) -> None:
    """Register the options (and the ini keys giving their defaults) on pytest's parser."""
    group = parser.getgroup("attnlab")
    for option in OPTIONS.values():
        group.addoption(option.flag, default=option.default, choices=option.choices, help=option.help)
        if option.ini:
            parser.addini(option.ini, f"default of {option.flag}", default="")


def pytest_value(config, name: str) -> str | None:
    """An option's value in a pytest run: the command line, else its ini key, else its default."""
    option = OPTIONS[name]
    return config.getoption(option.flag) or (config.getini(option.ini) if option.ini else None) or option.default


# -- one run ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Run:
    """Everything a run is configured with, resolved once at its entry point and passed down."""

    course: Course
    adapter: "Adapter"  # the framework students write in (its name: adapter.name)
    limits: Limits
    device: str = "cpu"
    lang: str = "en"
    seed: int | None = None  # grading's secret seed for fresh inputs (None: the published fixtures)

    @property
    def framework(self) -> str:
        """The framework's name, for what is written out (results, messages)."""
        return self.adapter.name

    @property
    def offered(self) -> tuple[str, ...]:
        """What student code may import besides the standard library: the framework's packages and the
        course's libraries (attnlab.core.imports)."""
        return imports.course_offers(self.adapter, self.course.libraries)

    def replace(self, **changes: Any) -> "Run":
        return dataclasses.replace(self, **changes)


def resolve(*, assignment: str | None = None, framework: str | None = None, device: str | None = None,
            lang: str | None = None, seed: int | None = None, **limits: Any) -> Run:
    """The run these options ask for. ValueError (a usage error) when the framework is not installed here or
    cannot run on the device, SpecError when the assignment does not exist or refuses the framework.
    `limits`: Limits fields given explicitly (None: the framework's default)."""
    course = load_course(paths.SPEC_DIR, assignment, framework)
    device = device or "cpu"
    adapter = frameworks.check_usable(frameworks.adapter(course.framework), device)
    return Run(course=course, adapter=adapter, limits=Limits.for_adapter(adapter, device, **limits), device=device,
               lang=lang or default_lang(), seed=seed)


def framework_name(assignment: str | None, framework: str | None) -> str:
    """The name of the framework a run will use, from course.yaml alone (no exercise loaded, no torch
    imported): grade.py starts its runner server, which imports the framework, while the specs load."""
    return framework or assignment_framework(paths.SPEC_DIR, assignment)
