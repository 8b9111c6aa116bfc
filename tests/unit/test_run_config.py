"""One run, one configuration (attnlab.core.config): every front end offers the same options, the framework
travels as its adapter, and there is one definition of the limits."""

import argparse
import ast
from pathlib import Path

import pytest

from attnlab.core import config, frameworks, paths
from attnlab.core.i18n import LANGS

PACKAGE = paths.ROOT / "attnlab"
# the only places that may know a framework by name: the adapters, and the module resolving a run's options
KNOWS_NAMES = (PACKAGE / "core" / "frameworks", PACKAGE / "core" / "config.py")


def argparse_options(parser: argparse.ArgumentParser) -> dict[str, tuple | None]:
    """{flag: choices} of every run option a parser (or its first subcommand) offers."""
    found = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found.update(argparse_options(next(iter(action.choices.values()))))
        for flag in action.option_strings:
            if flag.removeprefix("--") in config.OPTIONS:
                found[flag] = tuple(action.choices) if action.choices else None
    return found


def pytest_options() -> dict[str, tuple | None]:
    """{flag: choices} the pytest plugin registers (through a parser that records what it is given)."""
    found = {}

    class Recorder:
        def getgroup(self, name):
            return self

        def addoption(self, flag, **kwargs):
            found[flag] = tuple(kwargs["choices"]) if kwargs.get("choices") else None

        def addini(self, *args, **kwargs):
            pass

    from attnlab.student import pytest_plugin

    pytest_plugin.pytest_addoption(Recorder())
    return {flag: choices for flag, choices in found.items() if flag.removeprefix("--") in config.OPTIONS}


def test_the_three_front_ends_offer_the_same_options_and_choices():
    from attnlab.grade.batch.cli import build_parser as grade_parser
    from attnlab.student.cli import parser as attnlab_parser

    expected = {option.flag: option.choices for option in config.OPTIONS.values()}
    assert argparse_options(grade_parser()) == expected
    assert argparse_options(attnlab_parser()) == expected
    assert pytest_options() == expected
    assert expected["--framework"] == frameworks.NAMES and expected["--lang"] == LANGS


def test_the_framework_list_and_languages_are_defined_once():
    """Derived from the adapters' registry (frameworks.MODULES) and the catalogue's languages: no other module
    writes either list out."""
    from attnlab.core import spec

    assert spec.FRAMEWORKS is frameworks.NAMES and tuple(frameworks.MODULES) == frameworks.NAMES
    for name in frameworks.NAMES:
        assert frameworks.adapter(name).name == name
    written = []
    for path in _python_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Tuple | ast.List) and {getattr(e, "value", None) for e in node.elts} in (
                    set(LANGS), set(frameworks.NAMES)):
                written.append(f"{path.relative_to(paths.ROOT)}:{node.lineno}")
    assert written == ["attnlab/core/i18n.py:20"], written


def _python_files():
    return [p for p in PACKAGE.rglob("*.py") if "release_files" not in p.parts]


def _outside_the_adapters(path: Path) -> bool:
    return not any(path == place or place in path.parents for place in KNOWS_NAMES)


def name_decisions(files: list[Path]) -> list[str]:
    """`framework: str = "torch"` defaults and comparisons of a framework's name with a literal in `files`."""
    found = []
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            where = f"{path.name}:{getattr(node, 'lineno', '?')}"
            if isinstance(node, ast.Compare):
                literal = any(isinstance(n, ast.Constant) and n.value in frameworks.NAMES
                              for side in (node.left, *node.comparators) for n in ast.walk(side))
                if literal and "framework" in ast.unparse(node):
                    found.append(f"{where}: {ast.unparse(node)}")
            pairs = []
            if isinstance(node, ast.arguments):
                positional = node.args[len(node.args) - len(node.defaults):]
                pairs = [*zip(positional, node.defaults), *zip(node.kwonlyargs, node.kw_defaults)]
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                pairs = [(node.target, node.value)]
            for target, default in pairs:
                name = getattr(target, "arg", None) or getattr(target, "id", "")
                if "framework" in name and isinstance(default, ast.Constant) and default.value in frameworks.NAMES:
                    found.append(f"{where}: {name} = {default.value!r}")
    return found


def test_no_framework_name_is_a_default_or_compared_outside_the_adapters():
    """Code deciding by a framework's name instead of asking its adapter."""
    found = name_decisions([p for p in _python_files() if _outside_the_adapters(p)])
    assert not found, "\n".join(found)


def test_the_scan_finds_what_it_looks_for(tmp_path):
    """The check above can fail: the patterns it forbids are found in a planted file."""
    planted = tmp_path / "planted.py"
    planted.write_text('def f(x, framework: str = "torch"):\n    return framework == "jax"\n'
                       'class C:\n    framework: str = "numpy"\n', encoding="utf-8")
    found = name_decisions([planted])
    assert len(found) == 3, found


def test_one_limits_definition():
    classes = [f"{p.relative_to(paths.ROOT)}" for p in _python_files()
               for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
               if isinstance(node, ast.ClassDef) and node.name == "Limits"]
    assert classes == ["attnlab/core/config.py"]
    from attnlab.grade.sandbox import launch

    assert launch.Limits is config.Limits


def test_limits_come_from_the_adapter_unless_given():
    jax = frameworks.adapter("jax")
    assert config.Limits.for_adapter(jax).timeout_s == config.EXERCISE_CPU_S * jax.cpu_factor
    assert config.Limits.for_adapter(jax).memory_mb == config.Limits().memory_mb  # none of its own
    roomy = type("RoomyAdapter", (type(jax),), {"memory_mb": 8192})()  # a framework that needs more
    assert config.Limits.for_adapter(roomy).memory_mb == 8192
    given = config.Limits.for_adapter(roomy, memory_mb=1024, timeout_s=None)
    assert given.memory_mb == 1024 and given.timeout_s == config.EXERCISE_CPU_S * jax.cpu_factor


def test_no_address_space_cap_off_the_cpu():
    """A CUDA context reserves tens of GB of address space: under the CPU's 4096 MB cap its initialisation
    failed with "out of memory" in every runner (seen on an H100 with scripts/device-check)."""
    from attnlab.grade.sandbox import launch

    torch_adapter = frameworks.adapter("torch")
    on_cpu, on_gpu = (config.Limits.for_adapter(torch_adapter, device) for device in ("cpu", "cuda"))
    assert on_cpu.memory_mb == 4096 and launch.rlimits(on_cpu)["AS"] == 4096 << 20
    assert on_gpu.memory_mb is None and "AS" not in launch.rlimits(on_gpu)
    assert launch.rlimits(on_gpu)["NPROC"] == on_cpu.max_processes
    assert config.Limits.for_adapter(torch_adapter, "cuda", memory_mb=2048).memory_mb == 2048  # --memory still wins


def test_a_run_is_resolved_once_with_everything_below_needs():
    run = config.resolve(assignment="modern", framework="numpy", lang="zh")
    assert run.adapter is frameworks.adapter("numpy") and run.framework == "numpy"
    assert run.course.assignment.id == "modern" and run.course.framework == "numpy"
    assert run.lang == "zh" and run.device == "cpu" and run.seed is None
    assert run.limits == config.Limits.for_adapter(run.adapter)
    with pytest.raises(ValueError, match="run on cpu only, not cuda"):
        config.resolve(framework="numpy", device="cuda")
