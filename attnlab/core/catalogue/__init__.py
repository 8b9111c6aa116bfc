"""The catalogue of every sentence the harness says (see attnlab.core.i18n), one module per area so each
area's sentences sit together. Keys are stable and unique across areas; each entry has "en" and "zh" (a
test checks both, and that every key used in the code exists).
"""

import importlib
import pkgutil

# every module of this package is an area: adding one needs no edit here (and merges never collide)
AREAS = tuple(importlib.import_module(f"{__name__}.{info.name}") for info in sorted(
    pkgutil.iter_modules(__path__), key=lambda info: info.name))
CATALOGUE: dict[str, dict[str, str]] = {}
for _area in AREAS:
    _clash = CATALOGUE.keys() & _area.MESSAGES.keys()
    if _clash:
        raise ValueError(f"catalogue keys defined twice: {sorted(_clash)}")
    CATALOGUE.update(_area.MESSAGES)
