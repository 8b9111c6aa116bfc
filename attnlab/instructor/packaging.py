"""What a release names and installs: the student's package, the pinned torch, and the requirements of a
handout and of the autograder, read from the project's own pyproject.toml (so they never drift from it).
Shared by the release and the handout notebooks' install cell."""

from attnlab.core import paths
from attnlab.core.frameworks.base import Adapter

PACKAGE = "attention"  # the student's working package in the handout
TORCH_PIN = "torch==2.13.0"
HANDOUT_DEPS = ("torch", "numpy", "jaxtyping", "beartype", "pyyaml", "pytest", "hypothesis", "matplotlib")
GRADER_DEPS = ("numpy", "jaxtyping", "beartype", "pyyaml", "hypothesis")  # torch is installed first, pinned


class ReleaseError(RuntimeError):
    """Something the release needs is missing or out of date; the message says which command fixes it."""


def framework_requirements(adapter: Adapter) -> list[str]:
    """What a framework that is not a core dependency adds (its extra in pyproject.toml's optional dependencies)."""
    import tomllib

    if adapter.extra is None:
        return []
    pyproject = tomllib.loads((paths.ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extras = pyproject["project"].get("optional-dependencies", {})
    if adapter.extra not in extras:
        raise ReleaseError(f"pyproject.toml: no optional dependencies [{adapter.extra}] to install {adapter.name} with")
    return list(extras[adapter.extra])


def requirements(names: tuple[str, ...]) -> list[str]:
    """The project's own requirement strings (pyproject.toml) for `names`, in that order: a dependency, or an
    optional one (an assignment's library such as triton, installed only where that assignment is graded)."""
    import tomllib

    pyproject = tomllib.loads((paths.ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    optional = pyproject["project"].get("optional-dependencies", {}).values()
    # a core dependency's own requirement wins over an extra's (mindspore's extra pins numpy<2 for its own
    # venv; every other handout must keep the core numpy, which jax needs at 2.x)
    declared = [*(req for extra in optional for req in extra), *pyproject["project"]["dependencies"]]
    by_name = {req.split(">")[0].split("=")[0].split("<")[0].strip().lower(): req for req in declared}
    missing = [name for name in names if name not in by_name]
    if missing:
        raise ReleaseError(f"pyproject.toml: [project] dependencies lack {', '.join(missing)}")
    return [by_name[name] for name in names]
