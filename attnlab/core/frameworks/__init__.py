"""The framework students write in (an assignment's `framework:`, or --framework): one adapter each, the
only code that knows that framework. The checks and the judge think in torch float64; an adapter turns a
call's torch arguments into the framework's (arrays, its random generator, its device) on the side where
the student's code runs, and its output back into torch tensors, and knows the framework's dtypes, its
in-place edits, its forbidden shortcuts, its gradients, where its reference and stubs live and what its
runners need. See base.py for the contract.

Everything else receives an adapter object (attnlab.core.config.Run.adapter), never a framework's name:
names are looked up here, once, at an entry point, or where a name crosses a process boundary.
"""

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # base imports torch: grade.py starts its runner server first (see its cli)
    from attnlab.core.frameworks.base import Adapter

from attnlab.core.frameworks.names import DEFAULT, MODULES, NAMES, OTHERS

__all__ = ["DEFAULT", "MODULES", "NAMES", "OTHERS", "adapter", "check_usable", "default"]
_ADAPTERS: dict[str, "Adapter"] = {}


def check_usable(found: "Adapter", device: str = "cpu") -> "Adapter":
    """The adapter, if its framework is installed here and can run on `device`'s type; else ValueError saying
    how to install it (grade.py, attnlab and pytest turn it into a usage error before anything runs)."""
    if not found.available():
        raise ValueError(f"{found.name} is not installed in this environment (python -m pip install "
                         f"'attnlab[{found.name}]', or the framework itself): the assignment is written in "
                         f"{found.name}")
    kind = device.split(":")[0]
    if kind not in found.devices:
        raise ValueError(f"{found.name} submissions run on {', '.join(found.devices)} only, not {device}")
    return found


def adapter(name: str) -> "Adapter":
    """The adapter of the framework `name` (one of NAMES); its framework is imported only when first used."""
    if name not in MODULES:
        raise ValueError(f"unknown framework {name!r}; known: {', '.join(MODULES)}")
    if name not in _ADAPTERS:
        module = importlib.import_module(f"attnlab.core.frameworks.{MODULES[name]}")
        _ADAPTERS[name] = module.ADAPTER
    return _ADAPTERS[name]


def default() -> "Adapter":
    """The adapter of a course.yaml without `framework:` (and of code that names none: the mutation corpus'
    top-level files, a notebook's check() outside any course)."""
    return adapter(DEFAULT)
