"""Tests that need a system package, or the MindSpore venv, say which: they fail naming the package and how to
install it, or skip when told to. `ATTNLAB_SKIP_SYSTEM=1` skips every one of them (a machine without the
packages, e.g. a laptop); `ATTNLAB_SKIP_BROWSER=1`, `ATTNLAB_SKIP_SLURM=1` and `ATTNLAB_SKIP_MINDSPORE=1`
skip one kind. README.md ("Quick start") lists the packages; `.ci/run` installs them as root.
"""

import os

import pytest

SKIP_ALL = "ATTNLAB_SKIP_SYSTEM"


def switched_off(switch: str | None = None) -> str | None:
    """The variable set to 1 that skips this kind of test (ATTNLAB_SKIP_SYSTEM or `switch`), if any."""
    return next((name for name in (SKIP_ALL, switch) if name and os.environ.get(name) == "1"), None)


def require(needs: str, missing: list[str], install: str, switch: str) -> None:
    """The calling test needs the packages `needs` names: skipped if its kind is switched off, failed naming
    what is `missing` and the command that installs it (`install`) if anything is."""
    if (by := switched_off(switch)) is not None:
        pytest.skip(f"{by}=1: this test needs {needs}")
    if missing:
        pytest.fail(f"{', '.join(missing)} not found: {install}, or set {switch}=1 (or {SKIP_ALL}=1 for every "
                    "test that needs a system package) to skip this test", pytrace=False)
