"""Helpers for the grading-runner tests: tiny submissions in tmp_path, RemoteImpls that are always closed,
and a /proc scan for processes that carry a submission's unique marker in their command line."""

import os
import textwrap
import uuid
from pathlib import Path

import pytest

from attnlab.core import frameworks
from attnlab.core.config import Limits
from attnlab.grade.judge.remote import RemoteImpl

REPO = Path(__file__).resolve().parents[2]
# every test budget is short, so the files stay fast; the runner's start (`import torch`) is not part of
# any budget, and the wall-clock backstop is tight (a sleeping submission ends after 1.5 x 3 + 1 s)
FAST = Limits(timeout_s=3.0, import_timeout_s=3.0, memory_mb=2048, max_processes=32, wall_factor=1.5,
              wall_extra_s=1.0)


@pytest.fixture
def fast_limits():
    return FAST


@pytest.fixture
def make_submission(tmp_path):
    """Write {filename: source} as a package dir whose name holds a unique marker; return (dir, marker)."""

    def make(files: dict[str, str]) -> tuple[Path, str]:
        marker = f"sub{uuid.uuid4().hex[:12]}"
        package = tmp_path / marker
        package.mkdir()
        files = {"__init__.py": "", **files}
        for name, source in files.items():
            (package / name).write_text(textwrap.dedent(source))
        return package, marker

    return make


@pytest.fixture
def remote(tmp_path):
    """A factory of RemoteImpls hiding the repo's reference/, spec/, fixtures/; all closed at teardown."""
    made = []

    def make(package: Path, limits: Limits = FAST, hidden: list[Path] = (), framework: str = "torch",
             tripwires: tuple[str, ...] = ()) -> RemoteImpl:
        scratch_root = tmp_path / "scratch"
        scratch_root.mkdir(exist_ok=True)
        hidden_paths = [REPO / "reference", REPO / "spec", REPO / "fixtures", *hidden]
        impl = RemoteImpl(package, name=package.name, limits=limits, adapter=frameworks.adapter(framework),
                          hidden_paths=hidden_paths, scratch_root=scratch_root, tripwires=tripwires)
        made.append(impl)
        return impl

    yield make
    for impl in made:
        impl.close()


def processes_with(marker: str) -> list[int]:
    """Live processes (not zombies) whose command line contains `marker`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in cmdline:
            found.append(int(entry))
    return found


@pytest.fixture
def leftovers():
    return processes_with
