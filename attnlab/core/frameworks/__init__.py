"""The framework students write in (an assignment's `framework:`, or --framework): one adapter each, the
only code that knows that framework. The checks and the judge think in torch float64; an adapter turns a
call's torch arguments into the framework's (arrays, its random generator, its device) on the side where
the student's code runs, and its output back into torch tensors, and knows the framework's dtypes, its
in-place edits, its forbidden shortcuts and its gradients. See base.py for the contract.
"""

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # base imports torch: grade.py starts its runner server first (see its cli)
    from attnlab.core.frameworks.base import Adapter

MODULES = {"torch": "for_torch", "numpy": "for_numpy", "jax": "for_jax", "mindspore": "for_mindspore"}
_ADAPTERS: dict[str, "Adapter"] = {}


def check_usable(framework: str, device: str = "cpu") -> "Adapter":
    """The adapter, if `framework` is installed here and can run on `device`'s type; else ValueError saying
    how to install it (grade.py, attnlab and pytest turn it into a usage error before anything runs)."""
    found = adapter(framework)
    if not found.available():
        raise ValueError(f"{framework} is not installed in this environment (python -m pip install "
                         f"'attnlab[{framework}]', or the framework itself): the assignment is written in {framework}")
    kind = device.split(":")[0]
    if kind not in found.devices:
        raise ValueError(f"{framework} submissions run on {', '.join(found.devices)} only, not {device}")
    return found


def adapter(framework: str) -> "Adapter":
    """The adapter of `framework` (one of MODULES); its framework is imported only when first used."""
    if framework not in MODULES:
        raise ValueError(f"unknown framework {framework!r}; known: {', '.join(MODULES)}")
    if framework not in _ADAPTERS:
        module = importlib.import_module(f"attnlab.core.frameworks.{MODULES[framework]}")
        _ADAPTERS[framework] = module.ADAPTER
    return _ADAPTERS[framework]
